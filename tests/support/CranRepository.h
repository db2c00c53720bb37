#pragma once

#include <QString>

namespace runbox::testsupport {

/// One R source package for a test repository.
struct RSourcePackage {
    QString name;
    QString version;
    QString code;      ///< R/code.R (its functions are exported)
    QString imports;   ///< the DESCRIPTION's Imports (empty = none)
    QString configure; ///< a `configure` shell script R CMD INSTALL runs (empty = none)
    /// src/NAME.c, compiled by R CMD INSTALL (needs a C compiler and R's headers: r-base-dev);
    /// the NAMESPACE then loads it (`useDynLib(NAME)`, for `.Call(..., PACKAGE = NAME)`).
    QString cSource = {};
};

/// Builds @p package with `R CMD build` (the host's R) into the local CRAN-like repository
/// @p repoDir (`src/contrib`, indexed again with tools::write_PACKAGES: "R Installation and
/// Administration" 6.6), readable by everyone for an agent that runs as another user. For the
/// science environments' r-lib provisioner (docs/environments.md). False, with @p error set,
/// when R failed.
bool addRSourcePackage(const QString& repoDir, const RSourcePackage& package, QString* error);

} // namespace runbox::testsupport
