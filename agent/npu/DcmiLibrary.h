#pragma once

#include "agent/npu/NpuChip.h"

#include <QList>
#include <QMutex>
#include <QString>
#include <QStringList>

namespace runbox::npu {

/// The driver's DCMI library (`libdcmi.so`), opened with dlopen at run time when present: it is
/// never a build dependency. Only the calls the inventory needs are resolved: dcmi_init,
/// dcmi_get_card_list, dcmi_get_device_num_in_card, dcmi_get_device_logic_id,
/// dcmi_get_device_chip_info, dcmi_get_device_health, dcmi_get_device_temperature,
/// dcmi_get_device_power_info, dcmi_get_device_hbm_info, dcmi_get_device_utilization_rate
/// (signatures per Huawei's "DCMI API Reference" for Ascend HDK 23.x/24.x).
///
/// The structures DCMI fills are read through zeroed buffers larger than the documented layout,
/// so a newer driver with longer structures cannot overrun them. All calls are serialised (DCMI
/// is not documented as thread-safe). Not exercised against real hardware in this repository.
class DcmiLibrary final {
public:
    /// Tries @p candidatePaths in order; the first that loads and exports every required symbol
    /// wins and dcmi_init is called once. Never throws; see available()/reason().
    explicit DcmiLibrary(const QStringList& candidatePaths);
    ~DcmiLibrary();
    DcmiLibrary(const DcmiLibrary&) = delete;
    DcmiLibrary& operator=(const DcmiLibrary&) = delete;

    /// True when a library was loaded and dcmi_init returned 0.
    bool available() const { return m_handle != nullptr; }
    /// Why it is not available (lists every path tried with its dlopen error), or the loaded
    /// path when it is.
    QString reason() const { return m_reason; }

    /// Every chip DCMI reports (one per device with a logic id; devices without one, such as the
    /// Mcu, are skipped), sorted by logic id. Power from 0.1 W units to W; HBM in MB. On a
    /// failing enumeration call returns what it had and sets @p error.
    QList<NpuChip> readChips(QString* error = nullptr) const;

private:
    struct Api;
    void* m_handle = nullptr;
    Api* m_api = nullptr;
    QString m_reason;
    mutable QMutex m_mutex;
};

} // namespace runbox::npu
