#pragma once

#include <sys/types.h>

#include "agent/Error.h"
#include "agent/npu/NpuChip.h"
#include "agent/npu/NpuConfig.h"

#include <QJsonValue>
#include <QList>
#include <QMap>
#include <QStringList>

namespace runbox::npu {

/// What a launch with chips adds to the bwrap argv and to the environment.
struct NpuLaunchPlan {
    QList<int> hostLogicIds; ///< ascending; sandbox /dev/davinci<i> is hostLogicIds[i]
    /// Appended right AFTER `--dev /dev` (so bwrap's fresh /dev exists first): the chip nodes,
    /// the management nodes that exist, /etc/ascend_install.info and the driver/toolkit binds.
    QStringList bwrapArgs;
    /// Variables the launch must set after `--clearenv` (see mergedEnvironment for how
    /// LD_LIBRARY_PATH, PYTHONPATH and PATH combine with the base environment).
    QMap<QString, QString> env;
    /// The groups of the passed-through device nodes that grant read and write: a sandbox user
    /// (privileged agents) reaches the nodes through them as supplementary groups, never as
    /// root (docs/contracts.md "No sandbox is host root").
    QList<gid_t> deviceGroups;

    bool isEmpty() const { return hostLogicIds.isEmpty(); }
    /// @p base with the NPU variables applied: LD_LIBRARY_PATH = NPU dirs then base's;
    /// PYTHONPATH = base's then the toolkit's site-packages and TBE path; PATH = /usr/local/bin
    /// then base's (default /usr/bin:/bin); every other NPU variable overrides. An empty plan
    /// returns @p base unchanged.
    QMap<QString, QString> mergedEnvironment(const QMap<QString, QString>& base) const;
    /// `--setenv K V` pairs of mergedEnvironment(base), keys sorted.
    QStringList setenvArgs(const QMap<QString, QString>& base) const;
};

/// Turns a validated chip selection into the bwrap fragment and environment that pass exactly
/// those chips into a sandbox, renumbered from 0 in ascending host order (docs/npu.md; the
/// original runner's [F] launch, sciencediscovery.md §6.2). Unselected chips do not exist inside.
class NpuPassthrough final {
public:
    explicit NpuPassthrough(NpuConfig config);

    /// The form of the request field `npuDevices`, whatever the host has: an array of integers
    /// (JSON numbers with no fraction, 0..1023, at most 1024 entries); duplicates are
    /// collapsed. Anything else (a string, an object, strings "0" / "../sda" / "0;", booleans,
    /// fractions, negative ids, a longer array) gives InvalidArgument `invalid_npu_devices`. A
    /// null/absent value is an empty selection. Returns the ascending unique ids, or an error
    /// in @p error.
    static QList<int> parseIds(const QJsonValue& requested, Error* error);
    /// Validates the request field `npuDevices`: parseIds(), then each id names a chip of
    /// @p inventory that is supported; unknown ids (99) and unsupported chips (named) give
    /// InvalidArgument `invalid_npu_devices` too. Returns the ascending unique ids, or an error in
    /// @p error.
    static QList<int> parseSelection(const QJsonValue& requested, const NpuSnapshot& inventory,
                                     Error* error);

    /// Builds the plan for @p logicIds (any order, duplicates allowed). An empty selection
    /// returns an empty plan: no argument, no variable. A chip whose node `<deviceRoot>/davinciN`
    /// is missing or is not a character device gives Unavailable `npu_device_missing`.
    NpuLaunchPlan build(const QList<int>& logicIds, Error* error) const;

    const NpuConfig& config() const { return m_config; }

private:
    NpuConfig m_config;
};

} // namespace runbox::npu
