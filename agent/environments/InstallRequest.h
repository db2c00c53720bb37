#pragma once

#include "agent/Error.h"

#include <QJsonObject>
#include <QStringList>

#include <optional>

namespace runbox::environments {

class EnvironmentProvisioner;

/// What `POST /v1/environments/{id}/install` or `/uninstall` asks, checked before anything is
/// created or started (docs/environments.md "Installing"):
/// `{"packages"?, "manager"?, "channels"?, "indexUrl"?, "workspace"?, "wheels"?}`. Every refusal is
/// InvalidArgument (400) naming the field: `invalid_request` (an unknown field),
/// `invalid_packages` (EnvironmentSpec::checkPackages; required unless wheels are given),
/// `invalid_manager` (not the one the environment's provisioner installs with:
/// EnvironmentProvisioner::manager()), `invalid_channels` (not a non-empty list of distinct
/// channels from the operator's list, RUNBOX_ENV_CONDA_CHANNELS, or an environment whose
/// provisioner takes none), `invalid_index_url` (not https without credentials, query or
/// fragment, or not the operator's index, RUNBOX_ENV_INDEX_URL: a tenant never points a build
/// at a host of its choosing; or on uninstall), `invalid_wheels` (not
/// 1–UploadedWheels::kMaxWheelsPerInstall strings, on a provisioner that takes none, or on
/// uninstall), `invalid_workspace` (wheels without the workspace they lie in, or a workspace
/// without wheels).
struct InstallRequest {
    QStringList packages;   ///< normalised specs (install) or the names to take out (uninstall)
    QStringList channels;   ///< the channels asked for, in order; empty: the operator's, all
    QString indexUrl;       ///< the package index asked for ("" = not asked)
    QString workspaceId;    ///< where the wheels lie
    QStringList wheelPaths; ///< workspace-relative paths of the wheels

    static std::optional<Error> parse(const QJsonObject& body,
                                      const EnvironmentProvisioner& provisioner, bool uninstall,
                                      InstallRequest* out);
};

} // namespace runbox::environments
