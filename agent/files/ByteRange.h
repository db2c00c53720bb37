#pragma once

#include <QByteArray>
#include <QByteArrayView>

namespace runbox::files {

/// The part of a file a GET sends, from its `Range` header (RFC 9110 §14.1–§14.2). Only one
/// range is served: a header the server may ignore — another unit, a malformed value, several
/// ranges — selects the whole file (§14.2: "a server MAY ignore the Range header field").
struct ByteRange {
    enum class Kind {
        Whole,        ///< 200 with the whole file
        Partial,      ///< 206 with `Content-Range: bytes first-last/size`
        Unsatisfiable ///< 416 with `Content-Range: bytes */size` (§15.5.17)
    };
    Kind kind = Kind::Whole;
    qint64 first = 0;  ///< first byte offset (Partial; 0 for Whole)
    qint64 length = 0; ///< bytes to send (Partial and Whole)

    /// Resolves the `Range` value @p header against a representation of @p size bytes:
    /// `bytes=F-L` (L clamped to size-1), `bytes=F-`, `bytes=-N` (the last N bytes). An
    /// int-range is satisfiable when F < size, a suffix-range when N > 0 and size > 0 (§14.1.1).
    /// Empty @p header: Whole.
    static ByteRange parse(QByteArrayView header, qint64 size);

    /// `bytes first-last/size` for Partial, `bytes */size` for Unsatisfiable.
    QByteArray contentRange(qint64 size) const;
};

/// Entity-tag comparisons for conditional requests (RFC 9110 §8.8.3.2, §13.1).
struct EntityTag {
    /// `If-None-Match`: true when @p headerList is `*` or one of its comma-separated tags matches
    /// @p etag by the weak comparison (a `W/` prefix is ignored on both sides).
    static bool noneMatchHits(QByteArrayView headerList, QByteArrayView etag);
    /// `If-Range`: true when @p header is exactly the strong tag @p etag (a weak tag or an
    /// HTTP date never matches, so the whole file is sent).
    static bool ifRangeMatches(QByteArrayView header, QByteArrayView etag);
};

} // namespace runbox::files
