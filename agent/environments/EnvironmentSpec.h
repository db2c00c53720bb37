#pragma once

#include "agent/Error.h"

#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <optional>

namespace runbox::environments {

/// The checks of what a client may ask of a science environment, run before anything is created
/// or started (docs/environments.md "Validation"). Every refusal is InvalidArgument (400) with a
/// code and a message naming the field.
namespace EnvironmentSpec {

/// Maximum length of one package spec, in characters.
inline constexpr int kMaxPackageSpecChars = 160;
/// Maximum number of package specs in one install.
inline constexpr int kMaxPackages = 200;

/// A name: 1–80 characters of `^[A-Za-z0-9][A-Za-z0-9 ._-]*$`. 400 `invalid_environment_name`.
std::optional<Error> checkName(const QJsonValue& name);

/// The package grammar of a provisioner: pip's (PEP 508 names, PEP 440 constraints), R's
/// (package names only: install.packages(3) takes no version) or conda's (match specs without a
/// channel).
enum class Grammar { Pip, Cran, Conda };

/// The language: "python" or "r". Anything else 400 `invalid_language`.
std::optional<Error> checkLanguage(const QJsonValue& language);

/// The provisioner of @p language (absent or null = "venv" for python, "r-lib" for r): "venv"
/// builds python only, "r-lib" r only (400 `invalid_provisioner` for the other pairing or an
/// unknown name); "micromamba" builds either.
std::optional<Error> checkProvisioner(const QJsonValue& provisioner, const QString& language,
                                      QString* out);

/// One package spec: a PEP 508 name (letters, digits, `.`, `_`, `-`, starting and ending with a
/// letter or digit), optional extras `[a,b]`, then optional version constraints made of
/// `==`, `!=`, `<=`, `>=`, `<`, `>`, `~=`, `===` and versions (letters, digits, `.`, `*`, `+`,
/// `!`, `-`, `_`), comma-separated, spaces allowed around them. Nothing else: no leading `-`
/// (pip options such as `--extra-index-url`, `-e`), no `/`, `\`, `:` or `@` (paths, URLs,
/// direct references), no `;` (markers), no `..`. Returns the spec without surrounding spaces,
/// or sets @p why.
QString normalisePackage(const QString& spec, QString* why);

/// One R package name ("Writing R Extensions" 1.1.1): ASCII letters, digits and `.`, at least
/// two characters, starting with a letter and not ending with `.`. Nothing else (no version,
/// path, URL or option). Returns it without surrounding spaces, or sets @p why.
QString normaliseRPackage(const QString& spec, QString* why);

/// One conda match spec without a channel: a name (letters, digits, `_`, `.`, `-`, starting with
/// a letter, digit or `_`), then optionally `=VERSION[=BUILD]` or constraints made of `==`,
/// `!=`, `<=`, `>=`, `<`, `>`, `~=` and versions (letters, digits, `.`, `*`, `+`, `!`, `_`),
/// comma-separated. Refused: a leading `-` (options), `::` or `/` (channels, paths), `:`, `@`,
/// `[`, spaces, quotes. Returns the spec, or sets @p why.
QString normaliseCondaPackage(const QString& spec, QString* why);

/// The project name of a spec accepted by normalisePackage(), normalised as PEP 503 says
/// (lower case, each run of `-`, `_`, `.` one `-`): `Foo_Bar[x]>=1` → `foo-bar`. Two specs of
/// one project name the same package, whatever their constraints.
QString packageName(const QString& spec);
/// packageName() for @p grammar (an R package's name is the spec itself: R names are
/// case-sensitive; a conda spec's is the part before its first operator, lower case).
QString packageName(const QString& spec, Grammar grammar);

/// @p base with @p added merged in: a spec of a project already in @p base replaces it (in
/// place of the old one's), others are appended. The packages of the next revision.
QStringList mergePackages(const QStringList& base, const QStringList& added,
                          Grammar grammar = Grammar::Pip);

/// @p base without the packages @p names names (packageName() compared). 400
/// `package_not_requested` naming the first of @p names that no spec of @p base has: only the
/// packages an environment was asked for can be taken out (a dependency goes with the last
/// package that needs it, since every revision is built afresh).
std::optional<Error> removePackages(const QStringList& base, const QStringList& names,
                                    Grammar grammar, QStringList* out);

/// `packages`: a non-empty array of at most kMaxPackages strings, each ≤ kMaxPackageSpecChars
/// characters and accepted by normalisePackage(). 400 `invalid_packages` naming the item and
/// the rule. Fills @p out with the normalised specs. @p grammar: normalisePackage(),
/// normaliseRPackage() or normaliseCondaPackage().
std::optional<Error> checkPackages(const QJsonValue& packages, QStringList* out,
                                   Grammar grammar = Grammar::Pip);

} // namespace EnvironmentSpec

} // namespace runbox::environments
