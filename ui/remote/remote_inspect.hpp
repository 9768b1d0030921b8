#pragma once
// Inspecting one remote value with the inspector's own tabs: the value is fetched and unwrapped,
// its pickle written under a private temporary directory as <dir>/<key>/<entry> (a key dir of one
// entry, so the Guards tab asks "would the remote entry serve these sizes"), then read by
// inspectArtifact exactly like a local file. Autotune values show as JSON text.
#include <QString>

#include "ui/inspector/inspection.hpp"

namespace kiln::ui {

class JobControl;

// `url`: the server (with its db), `redisKey`: pt2:<cache id>::<key>:c1, `scratchDir`: an existing
// directory the caller owns. The Inspection's path is the remote origin (no password).
Inspection inspectRemoteEntry(const QString& url, const QString& redisKey, const QString& scratchDir, JobControl& ctl);

}  // namespace kiln::ui
