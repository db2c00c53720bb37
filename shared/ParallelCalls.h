#pragma once

#include "shared/ApiClient.h"

#include <QByteArray>
#include <QList>

namespace runbox {

/// One request of a batch sent by runParallel(), and its answer once it ran.
struct ParallelCall {
    ApiClient* client = nullptr;
    QByteArray method;
    QByteArray pathAndQuery;
    QByteArray body;      ///< raw JSON body ("" for none)
    ApiResponse response; ///< filled by runParallel(); status 0 + networkError when none came
    int tag = 0;          ///< the caller's (an index into its own list)
};

/// Sends every call of @p calls at once (signed, each through its client) and returns when all
/// have answered or @p timeoutMs passed; a call still open then is aborted and answered with
/// status 0 and networkError "no answer within N ms". Runs a local event loop: for the CLI and
/// tests, never the GUI thread.
void runParallel(QList<ParallelCall>* calls, int timeoutMs);

} // namespace runbox
