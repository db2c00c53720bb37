// The science-environment rows of the configuration table (docs/environments.md), in Key order
// after the general rows up to idleAfterMs.
#include "agent/config/ConfigTableRows.h"

namespace runbox::config {

namespace {

using G = OptionGroup;
using T = OptionType;

} // namespace

QList<OptionSpec> environmentOptionRows() {
    return {
        {.key = Key::EnvWheelhouse,
         .name = "envWheelhouse",
         .type = T::Path,
         .group = G::General,
         .defaultNote = "none: science environments get no packages (installs → 503)",
         .envVar = "RUNBOX_ENV_WHEELHOUSE",
         .fileKey = "envWheelhouse",
         .flags = kMakeAbsolute,
         .help = "The offline wheelhouse of science environments: a directory of wheels bound "
                 "read-only into each build, pip --no-index --find-links (docs/environments.md)."},
        {.key = Key::EnvCranRepository,
         .name = "envCranRepository",
         .type = T::Path,
         .group = G::General,
         .defaultNote = "none: R environments get no packages (installs → 503)",
         .envVar = "RUNBOX_ENV_CRAN_REPOSITORY",
         .fileKey = "envCranRepository",
         .flags = kMakeAbsolute,
         .help = "The local CRAN-like repository of R environments: a directory with "
                 "src/contrib/PACKAGES (tools::write_PACKAGES) bound read-only into each build, "
                 "install.packages from file:// (docs/environments.md)."},
        {.key = Key::EnvMicromamba,
         .name = "envMicromamba",
         .type = T::Path,
         .group = G::General,
         .defaultNote = "none: the micromamba provisioner is unavailable",
         .envVar = "RUNBOX_ENV_MICROMAMBA",
         .fileKey = "envMicromamba",
         .flags = kMakeAbsolute,
         .help = "The micromamba binary of conda environments, run inside each build from a "
                 "copy whose SHA-256 was checked (docs/environments.md)."},
        {.key = Key::EnvMicromambaSha256,
         .name = "envMicromambaSha256",
         .type = T::String,
         .group = G::General,
         .defaultNote = "none: micromamba is not run",
         .envVar = "RUNBOX_ENV_MICROMAMBA_SHA256",
         .fileKey = "envMicromambaSha256",
         .help = "The expected SHA-256 (hex) of the micromamba binary, checked before every "
                 "use."},
        {.key = Key::EnvCondaChannels,
         .name = "envCondaChannels",
         .type = T::PathList,
         .group = G::General,
         .defaultNote = "none: conda environments get no packages",
         .envVar = "RUNBOX_ENV_CONDA_CHANNELS",
         .fileKey = "envCondaChannels",
         .flags = kAbsoluteEntries,
         .help = "The local conda channels (directories, colon-separated), bound read-only "
                 "into each micromamba build and named file:///opt/conda-channels/N "
                 "(docs/environments.md)."},
        {.key = Key::EnvRevisionGraceS,
         .name = "envRevisionGraceS",
         .type = T::Integer,
         .group = G::General,
         .defaultValue = "86400",
         .unit = "s",
         .envVar = "RUNBOX_ENV_REVISION_GRACE_S",
         .fileKey = "envRevisionGraceS",
         .min = 0,
         .max = qint64(365) * 86400,
         .help = "A science environment revision that is no longer current and that no queued or "
                 "running execution uses has its prefix removed this long after it was built "
                 "(its metadata and snapshot stay; docs/environments.md)."},
        {.key = Key::EnvStarters,
         .name = "envStarters",
         .type = T::Boolean,
         .group = G::General,
         .defaultValue = "true",
         .envVar = "RUNBOX_ENV_STARTERS",
         .fileKey = "envStarters",
         .help = "Whether the starter environments starter-python (venv) and starter-r (r-lib) "
                 "are built on the first execution that names them (docs/environments.md)."},
        {.key = Key::EnvStarterPythonPackages,
         .name = "envStarterPythonPackages",
         .type = T::String,
         .group = G::General,
         .defaultValue = "numpy pandas scipy matplotlib",
         .envVar = "RUNBOX_ENV_STARTER_PYTHON_PACKAGES",
         .fileKey = "envStarterPythonPackages",
         .help = "The packages of starter-python (pip requirements, space-separated), installed "
                 "from envWheelhouse; without one it holds the interpreter only."},
        {.key = Key::EnvStarterRPackages,
         .name = "envStarterRPackages",
         .type = T::String,
         .group = G::General,
         .defaultNote = "none: R and its base packages",
         .envVar = "RUNBOX_ENV_STARTER_R_PACKAGES",
         .fileKey = "envStarterRPackages",
         .help = "The packages of starter-r (R package names, space-separated), installed from "
                 "envCranRepository."},
        {.key = Key::EnvIndexUrl,
         .name = "envIndexUrl",
         .type = T::String,
         .group = G::General,
         .defaultNote = "none: venv builds have no network",
         .envVar = "RUNBOX_ENV_INDEX_URL",
         .fileKey = "envIndexUrl",
         .help = "The package index of venv builds (PEP 503 simple API): https, a DNS name, no "
                 "credentials, query or fragment. A build that uses it reaches that host only, "
                 "through the egress gateway (docs/environments.md \"Package index\")."},
        {.key = Key::EnvCranUrl,
         .name = "envCranUrl",
         .type = T::String,
         .group = G::General,
         .defaultNote = "none: R builds install from envCranRepository only, offline",
         .envVar = "RUNBOX_ENV_CRAN_URL",
         .fileKey = "envCranUrl",
         .help = "A CRAN-like repository of r-lib builds (a CRAN mirror or an internal one, "
                 "serving src/contrib/PACKAGES): https, a DNS name, no credentials, query or "
                 "fragment. A build that uses it reaches that host only, through the egress "
                 "gateway (docs/environments.md \"Package index\")."},
        {.key = Key::EnvCondaChannelUrls,
         .name = "envCondaChannelUrls",
         .type = T::String,
         .group = G::General,
         .defaultNote = "none: conda builds use the local channels only, offline",
         .envVar = "RUNBOX_ENV_CONDA_CHANNEL_URLS",
         .fileKey = "envCondaChannelUrls",
         .help = "Remote conda channels of micromamba builds (space- or comma-separated), each "
                 "https, a DNS name, no credentials, query or fragment; after the local channels "
                 "in the operator's channel list. A build that uses one reaches its host only, "
                 "through the egress gateway (docs/environments.md \"Package index\")."},
        {.key = Key::EnvIndexCaFile,
         .name = "envIndexCaFile",
         .type = T::Path,
         .group = G::General,
         .defaultNote = "none: the package managers' own CA bundles",
         .envVar = "RUNBOX_ENV_INDEX_CA_FILE",
         .fileKey = "envIndexCaFile",
         .flags = kMakeAbsolute,
         .help = "A PEM CA bundle builds trust for envIndexUrl, envCranUrl and "
                 "envCondaChannelUrls (a mirror with a private CA), read at every build and "
                 "bound read-only into it."},
        {.key = Key::EnvIndexPrivateCidrs,
         .name = "envIndexPrivateCidrs",
         .type = T::String,
         .group = G::General,
         .defaultNote = "none: package source URLs must resolve to public addresses",
         .envVar = "RUNBOX_ENV_INDEX_PRIVATE_CIDRS",
         .fileKey = "envIndexPrivateCidrs",
         .help = "Private or loopback ranges (CIDRs, comma-separated) the hosts of envIndexUrl, "
                 "envCranUrl and envCondaChannelUrls may resolve to, for a mirror on the local "
                 "network (the build's allowPrivateCidrs)."},
    };
}

} // namespace runbox::config
