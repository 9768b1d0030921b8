#!/usr/bin/env bash
# packaging/check_package.sh STEP BUILD_DIR WORK_DIR [GUI=0|1] -- the `packaging` ctest checks.
#   build               cpack the .deb into WORK_DIR/out, check its layout and control fields,
#                       unpack it with dpkg -x into WORK_DIR/root
#   unpacked_runs       the unpacked programs run from the scratch root: versions, stats, man page
#   desktop_file_valid  desktop-file-validate on the installed .desktop file
#   appstream_valid     appstreamcli validate --no-net on the installed metainfo file
#   lintian             lintian on the .deb: no errors (warnings are printed, allowed)
#   tarball_runs        cpack the .tar.gz, unpack it elsewhere: its programs run from there (the worker
#                       found beside them), `kiln --help` without a display
set -euo pipefail
step="$1" build="$2" work="$3" gui="${4:-0}"
root="$work/root"
app_id="io.github.kiln.Kiln"

fail() { echo "check_package $step: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null || fail "$1 is missing (Debian package $2)"; }
the_deb() {
  local d
  d=$(ls "$work"/out/kiln_*.deb 2>/dev/null | head -n1)
  [ -n "$d" ] || fail "no .deb in $work/out (did packaging.deb_builds run?)"
  echo "$d"
}
expect_file() { [ -f "$root/$1" ] || fail "the package lacks /$1"; }

case "$step" in
  build)
    need cpack cmake; need dpkg-deb dpkg; need dpkg-shlibdeps dpkg-dev
    rm -rf "$work"
    mkdir -p "$work/out" "$root"
    (cd "$build" && cpack -G DEB -B "$work/out") >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; fail "cpack failed"; }
    deb=$(the_deb)
    dpkg-deb --info "$deb"
    control=$(dpkg-deb --field "$deb")
    grep -q '^Section: devel$' <<<"$control" || fail "Section is not devel"
    grep -q '^Depends: .*libc6' <<<"$control" || fail "Depends lacks the shared-library dependencies (dpkg-shlibdeps)"
    grep -q '^Depends: .*libssl' <<<"$control" || fail "Depends lacks OpenSSL"
    grep -qi '^Description: inspector and tuner' <<<"$control" || fail "unexpected Description"
    [ "$(grep -ci 'inspector and tuner' <<<"$control")" = 1 ] || fail "the synopsis is repeated in the extended description"
    dpkg -x "$deb" "$root"
    expect_file usr/bin/kiln-cli
    expect_file usr/share/man/man1/kiln-cli.1.gz
    expect_file usr/share/doc/kiln/copyright
    expect_file usr/share/doc/kiln/changelog.gz
    [ -d "$root/usr/share/kiln/sample-cache/fxgraph" ] || fail "the package lacks the sample cache"
    if [ -x "$build/bin/kiln-worker" ]; then expect_file usr/libexec/kiln/kiln-worker; fi
    if [ "$gui" = 1 ]; then
      expect_file usr/bin/kiln
      expect_file "usr/share/applications/$app_id.desktop"
      expect_file "usr/share/metainfo/$app_id.metainfo.xml"
      expect_file "usr/share/icons/hicolor/scalable/apps/$app_id.svg"
      expect_file "usr/share/icons/hicolor/256x256/apps/$app_id.png"
      file "$root/usr/share/icons/hicolor/256x256/apps/$app_id.png" | grep -q '256 x 256' || fail "the PNG icon is not 256x256"
    fi
    echo "ok: $(basename "$deb") built and unpacked into $root"
    ;;
  tarball_runs)
    out="$work/tgz"
    rm -rf "$out"
    mkdir -p "$out/unpacked"
    (cd "$build" && cpack -G TGZ -B "$out") >"$out/cpack.log" 2>&1 || { cat "$out/cpack.log"; fail "cpack TGZ failed"; }
    tgz=$(ls "$out"/kiln-*-linux-*.tar.gz 2>/dev/null | head -n1)
    [ -n "$tgz" ] || fail "no kiln-<version>-linux-<arch>.tar.gz in $out: $(ls "$out")"
    tar -xzf "$tgz" -C "$out/unpacked"
    top=$(ls -d "$out"/unpacked/kiln-* | head -n1)
    [ -x "$top/bin/kiln-cli" ] || fail "the tarball lacks bin/kiln-cli"
    unset KILN_WORKER
    version=$(cd / && "$top/bin/kiln-cli" --version)
    echo "$version"
    if [ -x "$build/bin/kiln-worker" ]; then
      grep -qx "kiln-worker $top/libexec/kiln/kiln-worker" <<<"$version" || fail "kiln-cli does not find the worker beside it"
    fi
    if [ "$gui" = 1 ]; then
      env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$top/bin/kiln" --help | grep -q -- '--screenshots' ||
        fail "kiln --help from the tarball failed"
    fi
    echo "ok: $(basename "$tgz") runs from $top"
    ;;
  unpacked_runs)
    [ -x "$root/usr/bin/kiln-cli" ] || fail "nothing unpacked in $root"
    cd "$work"
    unset KILN_WORKER
    version=$("$root/usr/bin/kiln-cli" --version)
    echo "$version"
    head -n1 <<<"$version" | grep -Eq '^kiln-cli [0-9]+\.[0-9]+\.[0-9]+' || fail "kiln-cli --version: no version line"
    grep -q '^OpenSSL ' <<<"$version" || fail "kiln-cli --version: no OpenSSL version"
    grep -q '^CUDA ' <<<"$version" || fail "kiln-cli --version: no CUDA line"
    if [ -x "$root/usr/libexec/kiln/kiln-worker" ]; then
      # Found relative to kiln-cli's own location, not through the build tree.
      grep -qx "kiln-worker $root/usr/libexec/kiln/kiln-worker" <<<"$version" || fail "kiln-cli does not find the unpacked worker"
    fi
    stats=$("$root/usr/bin/kiln-cli" stats "$root/usr/share/kiln/sample-cache" --json)
    echo "$stats"
    python3 - "$stats" <<'PY' || fail "kiln-cli stats on the installed sample cache: unexpected result"
import json, sys
s = json.loads(sys.argv[1])
assert s["fxgraph_keys"] == 3, s
assert s["unreadable"] == 0, s
assert "other" not in s["categories"], s
assert s["categories"]["autotune_local_cache"]["files"] == 1, s
PY
    zcat "$root/usr/share/man/man1/kiln-cli.1.gz" | grep -q '^\.TH "\?KILN-CLI' || fail "the man page has no .TH header"
    zcat "$root/usr/share/man/man1/kiln-cli.1.gz" | grep -q 'evict' || fail "the man page does not list the subcommands"
    if [ "$gui" = 1 ]; then
      gversion=$(QT_QPA_PLATFORM=offscreen "$root/usr/bin/kiln" --version)
      echo "$gversion"
      head -n1 <<<"$gversion" | grep -Eq '^kiln [0-9]+\.[0-9]+\.[0-9]+' || fail "kiln --version: no version line"
      grep -q '^Qt 6\.' <<<"$gversion" || fail "kiln --version: no Qt version"
      grep -q '^OpenSSL ' <<<"$gversion" || fail "kiln --version: no OpenSSL version"
    fi
    echo "ok: the unpacked programs run"
    ;;
  desktop_file_valid)
    need desktop-file-validate desktop-file-utils
    desktop-file-validate "$root/usr/share/applications/$app_id.desktop"
    echo "ok: desktop file valid"
    ;;
  appstream_valid)
    need appstreamcli appstream
    appstreamcli validate --no-net "$root/usr/share/metainfo/$app_id.metainfo.xml"
    ;;
  lintian)
    need lintian lintian
    deb=$(the_deb)
    rc=0
    out=$(lintian --no-tag-display-limit "$deb" 2>&1) || rc=$?
    echo "$out"
    [ "$rc" -le 1 ] || fail "lintian itself failed (exit $rc)"
    if grep -q '^E: ' <<<"$out"; then fail "lintian reports errors"; fi
    echo "ok: lintian reports no errors"
    ;;
  *) fail "unknown step (build, unpacked_runs, desktop_file_valid, appstream_valid, lintian)" ;;
esac
