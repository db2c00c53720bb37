#pragma once
// Runs a test under both resolution modes of the workspace file layer (WorkspaceResolver): with
// openat2 and with the per-component O_NOFOLLOW fallback used where openat2 is unavailable.

#include "agent/workspace/WorkspaceResolver.h"

#include <QTest>

namespace runbox::testsupport {

/// From initTestCase_data(): one global row per mode (column "fallback").
inline void addResolverModeRows() {
    QTest::addColumn<bool>("fallback");
    QTest::newRow("openat2") << false;
    QTest::newRow("per-component fallback") << true;
}

/// From init(): applies the current global row's mode.
inline void applyResolverModeRow() {
    QFETCH_GLOBAL(bool, fallback);
    workspace::WorkspaceResolver::setForceFallbackForTesting(fallback);
}

/// From cleanupTestCase(): back to openat2 where the kernel has it.
inline void resetResolverMode() {
    workspace::WorkspaceResolver::setForceFallbackForTesting(false);
}

} // namespace runbox::testsupport
