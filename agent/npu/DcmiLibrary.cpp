#include "agent/npu/DcmiLibrary.h"

#include <QMutexLocker>
#include <QSet>

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <type_traits>

namespace runbox::npu {

namespace {

// DCMI API Reference: dcmi_chip_info holds three 32-byte strings (chip_type, chip_name,
// chip_ver) then the AI core count; dcmi_hbm_info starts with memory_size (MB, u64), freq (u32),
// memory_usage (MB, u64). Buffers are over-sized and zeroed; only these prefixes are read.
constexpr int kChipNameLen = 32;
constexpr int kStructSlack = 512;
constexpr int kMaxCards = 64;
constexpr int kUtilizationAiCore = 2; // dcmi_get_device_utilization_rate input_type

struct HbmInfoPrefix {
    unsigned long long memorySizeMb;
    unsigned int freq;
    unsigned long long memoryUsageMb;
};

QString cString(const unsigned char* bytes, int max) {
    const char* text = reinterpret_cast<const char*>(bytes);
    return QString::fromLatin1(text, static_cast<int>(strnlen(text, max))).trimmed();
}

QString healthName(unsigned int code) {
    switch (code) {
    case 0:
        return QStringLiteral("OK");
    case 1:
        return QStringLiteral("Warning");
    case 2:
        return QStringLiteral("Alarm");
    case 3:
        return QStringLiteral("Critical");
    default:
        return QStringLiteral("UNKNOWN");
    }
}

} // namespace

struct DcmiLibrary::Api {
    int (*init)();
    int (*getCardList)(int*, int*, int);
    int (*getDeviceNumInCard)(int, int*);
    int (*getDeviceLogicId)(int*, int, int);
    int (*getChipInfo)(int, int, void*);
    int (*getHealth)(int, int, unsigned int*);
    int (*getTemperature)(int, int, int*);
    int (*getPowerInfo)(int, int, int*);
    int (*getHbmInfo)(int, int, void*);
    int (*getUtilization)(int, int, int, unsigned int*);
};

DcmiLibrary::DcmiLibrary(const QStringList& candidatePaths) {
    QStringList failures;
    for (const QString& path : candidatePaths) {
        void* handle = dlopen(path.toLocal8Bit().constData(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* error = dlerror();
            failures << QStringLiteral("%1 (%2)").arg(path, error ? QString::fromLocal8Bit(error)
                                                                  : QStringLiteral("cannot load"));
            continue;
        }
        auto api = std::make_unique<Api>();
        QString missing;
        auto resolve = [&](auto*& slot, const char* name) {
            slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(handle, name));
            if (!slot && missing.isEmpty())
                missing = QString::fromLatin1(name);
        };
        resolve(api->init, "dcmi_init");
        resolve(api->getCardList, "dcmi_get_card_list");
        resolve(api->getDeviceNumInCard, "dcmi_get_device_num_in_card");
        resolve(api->getDeviceLogicId, "dcmi_get_device_logic_id");
        resolve(api->getChipInfo, "dcmi_get_device_chip_info");
        resolve(api->getHealth, "dcmi_get_device_health");
        resolve(api->getTemperature, "dcmi_get_device_temperature");
        resolve(api->getPowerInfo, "dcmi_get_device_power_info");
        resolve(api->getHbmInfo, "dcmi_get_device_hbm_info");
        resolve(api->getUtilization, "dcmi_get_device_utilization_rate");
        if (!missing.isEmpty()) {
            failures << QStringLiteral("%1 (no symbol %2)").arg(path, missing);
            dlclose(handle);
            continue;
        }
        const int rc = api->init();
        if (rc != 0) {
            failures << QStringLiteral("%1 (dcmi_init returned %2)").arg(path).arg(rc);
            dlclose(handle);
            continue;
        }
        m_handle = handle;
        m_api = api.release();
        m_reason = QStringLiteral("DCMI loaded from %1").arg(path);
        return;
    }
    m_reason =
        candidatePaths.isEmpty()
            ? QStringLiteral("libdcmi.so: no path configured")
            : QStringLiteral("libdcmi.so not usable: %1").arg(failures.join(QStringLiteral("; ")));
}

DcmiLibrary::~DcmiLibrary() {
    // dlclose is deliberately skipped: DCMI may leave threads behind that still run its code.
    delete m_api;
}

QList<NpuChip> DcmiLibrary::readChips(QString* error) const {
    QList<NpuChip> chips;
    if (!m_api) {
        if (error)
            *error = m_reason;
        return chips;
    }
    QMutexLocker lock(&m_mutex);
    int cardCount = 0;
    int cards[kMaxCards] = {};
    int rc = m_api->getCardList(&cardCount, cards, kMaxCards);
    if (rc != 0 || cardCount < 0) {
        if (error)
            *error = QStringLiteral("dcmi_get_card_list returned %1").arg(rc);
        return chips;
    }
    cardCount = std::min(cardCount, kMaxCards);
    QSet<int> seen;
    for (int c = 0; c < cardCount; ++c) {
        const int card = cards[c];
        int deviceCount = 0;
        if (m_api->getDeviceNumInCard(card, &deviceCount) != 0 || deviceCount < 0)
            continue;
        for (int device = 0; device < std::min(deviceCount, 16); ++device) {
            int logicId = -1;
            if (m_api->getDeviceLogicId(&logicId, card, device) != 0 || logicId < 0 ||
                logicId > 1023 || seen.contains(logicId))
                continue; // Mcu, a device without a davinci node, or a repeated id
            seen.insert(logicId);
            NpuChip chip;
            chip.logicId = logicId;
            chip.npuId = card;
            chip.chipId = device;
            unsigned char info[3 * kChipNameLen + kStructSlack] = {};
            if (m_api->getChipInfo(card, device, info) == 0) {
                const QString type = cString(info, kChipNameLen);
                const QString name = cString(info + kChipNameLen, kChipNameLen);
                chip.name = type.isEmpty() ? name : type + QLatin1Char(' ') + name;
            }
            const ChipSupport support = ChipSupport::classify(chip.name);
            chip.supported = support.supported;
            chip.unsupportedReason = support.reason;
            unsigned int health = 0;
            if (m_api->getHealth(card, device, &health) == 0)
                chip.health = healthName(health);
            int temperature = 0;
            if (m_api->getTemperature(card, device, &temperature) == 0)
                chip.temperatureC = temperature;
            int powerDeciWatts = 0;
            if (m_api->getPowerInfo(card, device, &powerDeciWatts) == 0 && powerDeciWatts >= 0)
                chip.powerW = powerDeciWatts / 10.0;
            unsigned char hbm[sizeof(HbmInfoPrefix) + kStructSlack] = {};
            if (m_api->getHbmInfo(card, device, hbm) == 0) {
                HbmInfoPrefix prefix;
                std::memcpy(&prefix, hbm, sizeof prefix);
                chip.hbmTotalMb = static_cast<qint64>(prefix.memorySizeMb);
                chip.hbmUsedMb = static_cast<qint64>(prefix.memoryUsageMb);
            }
            unsigned int aiCore = 0;
            if (m_api->getUtilization(card, device, kUtilizationAiCore, &aiCore) == 0 &&
                aiCore <= 100)
                chip.aiCorePercent = static_cast<int>(aiCore);
            chips.append(chip);
        }
    }
    std::sort(chips.begin(), chips.end(),
              [](const NpuChip& a, const NpuChip& b) { return a.logicId < b.logicId; });
    return chips;
}

} // namespace runbox::npu
