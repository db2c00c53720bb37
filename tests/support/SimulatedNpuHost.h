#pragma once

#include <QString>
#include <QTemporaryDir>

namespace runbox::tests {

/// A simulated Ascend host for tests (needs root for mknod): a device root with character nodes
/// davinci0..N-1 plus the management nodes (all c 1:3, i.e. openable like /dev/null, each with
/// its own inode), a fake `npu-smi` and a state directory. The fake npu-smi:
/// - on the host (no /dev/davinci* visible to it) lists every chip of the device root as
///   healthy, as the real driver does even for chips a namespace cannot open;
/// - inside a sandbox enumerates the /dev/davinci* nodes it can see and, all-or-nothing, fails
///   with the driver's message `dcmi model initialized failed, because the device is used.
///   ret is -8020` (after an `[INFO]` noise line) when any visible node is a chip marked
///   occupied. Occupancy = the node's inode listed in `<state>/occupied` (bind mounts keep the
///   inode, so renumbering cannot hide it).
/// - appends one line per run to `<state>/calls`.
class SimulatedNpuHost final {
public:
    /// @p chips nodes; @p managementNodes: create davinci_manager, devmm_svm, hisi_hdc.
    explicit SimulatedNpuHost(int chips = 8, bool managementNodes = true);

    bool isValid() const { return m_valid; }
    QString error() const { return m_error; }
    QString deviceRoot() const { return m_dir.path() + QStringLiteral("/dev"); }
    QString npuSmiPath() const { return m_dir.path() + QStringLiteral("/bin/npu-smi"); }
    QString stateDir() const { return m_dir.path() + QStringLiteral("/state"); }
    QString installInfoPath() const {
        return m_dir.path() + QStringLiteral("/ascend_install.info");
    }
    QString root() const { return m_dir.path(); }

    /// Inode of the host node davinci@p logicId (what the fake sees through a bind mount).
    qulonglong inodeOf(int logicId) const;
    /// Marks the chip occupied by another tenant (or frees it).
    void setOccupied(int logicId, bool occupied);
    /// How many times the fake npu-smi ran.
    int callCount() const;

private:
    QTemporaryDir m_dir;
    bool m_valid = false;
    QString m_error;
};

} // namespace runbox::tests
