#pragma once

#include <QString>

namespace runbox::sandbox {

/// Makes @p dir a mount point of its own with `nosuid,nodev` (a bind mount onto itself, then a
/// bind remount; mount(2)), so that a set-user-ID or device file that code in a workspace made
/// gives nobody on the host its uid or a device (docs/contracts.md "Sandbox uids"). Already a
/// mount point: only the remount. Needs CAP_SYS_ADMIN in the agent's mount namespace. Returns an
/// error text, empty on success.
QString mountNoSuid(const QString& dir);

} // namespace runbox::sandbox
