#pragma once

#include "agent/Error.h"

namespace runbox::environments {

/// Unavailable `environment_unavailable`: what an environment needs is gone or missing here (a
/// provisioner, a build workspace, a prefix).
inline Error environmentUnavailable(const QString& message) {
    return Error{ErrorKind::Unavailable, QStringLiteral("environment_unavailable"), message};
}

/// Conflict `starter_read_only`: starter @p id is neither installed into nor deleted.
inline Error starterReadOnly(const QString& id) {
    return Error{ErrorKind::Conflict, QStringLiteral("starter_read_only"),
                 QStringLiteral("%1 is a starter environment: its packages are a setting "
                                "(docs/environments.md \"Starters\") and it is never deleted; "
                                "create an environment of your own to install into")
                     .arg(id)};
}

} // namespace runbox::environments
