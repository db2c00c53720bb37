#pragma once

#include <QString>

namespace runbox::light {

/// Light workspace homes are entered by path (HOME, cwd) by processes running as the workspace
/// uid, which is neither the owner nor in the group of any directory above the home: every
/// ancestor of the light root must grant search (x) to others.
class LightRootPath final {
public:
    /// Checks every existing ancestor of @p root (absolute). The agent's own @p stateDir, when it
    /// is one of them and lacks o+x, is set to 0711 (search, no listing); the database files in
    /// it are then set to 0600, so that nothing in it becomes readable by other users. Any other
    /// ancestor without o+x is refused: false with @p error naming it, its mode, and
    /// RUNBOX_LIGHT_ROOT as the way out.
    static bool makeReachable(const QString& root, const QString& stateDir, QString* error);
};

} // namespace runbox::light
