#pragma once

#include <QByteArrayView>
#include <QString>

#include <optional>

namespace runbox::api {

/// The first member name that occurs twice in one object of the JSON text @p json, at any
/// depth (objects inside arrays and inside other objects included), or nothing when every
/// object's names are unique.
///
/// RFC 8259 §4 says "the names within an object SHOULD be unique" and leaves what a parser does
/// with duplicates open; QJsonDocument silently keeps the last one, so `{"code":"id",
/// "code":"echo DUP"}` would run what a reviewer of the first member never saw. The agent
/// therefore refuses such bodies (parseJsonObject → 400 `invalid_json`). Names are compared
/// after unescaping (`"a"` and `"\u0061"` are the same name); the same name in two sibling
/// objects is fine.
///
/// Precondition: @p json is valid JSON (QJsonDocument::fromJson accepted it); on other input
/// the answer is unspecified but the scan stays within @p json. Linear in the size of @p json,
/// no recursion (the nesting depth costs heap, not stack). Returns the name unescaped, in full.
std::optional<QString> findDuplicateJsonKey(QByteArrayView json);

} // namespace runbox::api
