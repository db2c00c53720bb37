#pragma once

#include <QColor>
#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace runbox::console {

/// One Ascend chip of `GET /v1/npu/chips` (docs/npu.md). Identity is the chip logic id.
struct NpuChip {
    Q_DECLARE_TR_FUNCTIONS(runbox::console::NpuChip)

public:
    int logicId = -1; ///< N of /dev/davinciN
    int npuId = -1;
    int chipId = -1;
    QString name; ///< e.g. "910B3", "310P3"
    bool supported = false;
    QString health; ///< npu-smi's health word: OK, Warning, Alarm, Critical…
    std::optional<double> powerW, temperatureC, aiCorePercent;
    std::optional<qint64> hbmUsedMb, hbmTotalMb;
    bool probeUsable = false;
    QString probeReason; ///< the driver's meaningful line when unusable
    QString probeAt;     ///< ISO time of the probe
    bool held = false;   ///< reserved now by a run or broker job (the answer's `held`)
    /// Who holds it, from the answer's `holders` (the agent token's view): an execution id or a
    /// broker job id; both empty when free or not named.
    QString holderExecution, holderBrokerJob;

    static NpuChip fromJson(const QJsonObject& chip);
    /// A run may ask for this chip: supported and its last probe succeeded.
    bool selectable() const { return supported && probeUsable; }
    /// Translated reason it cannot be selected (empty when selectable).
    QString unusableReason() const;
    /// Translated holder ("execution ID", "broker job ID"); empty when none is named.
    QString holderText() const;
    /// Colour of the health word (green OK, amber warning, red alarm/critical, grey unknown).
    QColor healthColor() const;
};

/// The whole answer: when, from where, and every chip in logic-id order.
struct NpuInventory {
    QString capturedAt;
    QString source; ///< "dcmi" | "npu-smi" | "none"
    QString reason; ///< why there are no chips, when none
    QList<NpuChip> chips;
    QList<int> held; ///< logic ids reserved now, ascending (holders on the chips)

    static NpuInventory fromJson(const QJsonObject& answer);
    int usableCount() const;
    /// How many listed chips are held now.
    int heldCount() const;
};

} // namespace runbox::console
