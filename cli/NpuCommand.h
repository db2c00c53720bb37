#pragma once

#include <QStringList>

namespace runbox {
class ApiClient;
}

namespace runbox::cli {

/// `runbox npu ls [--refresh] [--json]`: the host's Ascend chips (docs/npu.md,
/// `GET /v1/npu/chips[?refresh=true]`: --refresh reads and probes them now instead of the
/// agent's cache). A table LOGIC-ID NAME HEALTH USABLE HBM-MB (used/total, `-` when not read)
/// HELD, then the source on stderr (with the reason on a host without NPU). Exit status: 0; 1
/// when the agent refuses; 2 on usage; 3 when it cannot be reached.
int runNpu(ApiClient& client, const QStringList& args);

} // namespace runbox::cli
