#pragma once

#include "agent/http/HttpRequest.h"
#include "shared/ApiError.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace runbox::api {

/// The file routes' query parameters, each refusal a 400 invalid_argument naming the parameter
/// (docs/contracts.md "Workspace file API").
class QueryParams final {
public:
    /// Refuses query parameters other than @p allowed (a typo must not silently change
    /// behaviour).
    static std::optional<ApiError> checkNames(const http::HttpRequest& req,
                                              const QStringList& allowed);
    /// `?name=true|false|1|0` into @p out (absent: @p fallback).
    static std::optional<ApiError> boolean(const http::HttpRequest& req, const QString& name,
                                           bool fallback, bool* out);
    /// `?name=N` into @p out, a whole number of at most 15 digits (absent: 0).
    static std::optional<ApiError> wholeNumber(const http::HttpRequest& req, const QString& name,
                                               qint64* out);
};

} // namespace runbox::api
