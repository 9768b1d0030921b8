// The precompiled header of the Qt Test targets (cmake/KilnPch.cmake): Qt's and QCustomPlot's headers
// that many ui tests include, parsed once for all of them. Every test file still includes what it uses.
#pragma once
#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMainWindow>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QString>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>
#include <QWidget>
#include <QtConcurrent/QtConcurrentRun>
#include <filesystem>
#include <string>
#include <vector>
