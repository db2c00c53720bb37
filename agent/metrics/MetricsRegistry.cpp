#include "agent/metrics/MetricsRegistry.h"

#include <QLocale>
#include <QRegularExpression>

#include <cmath>

namespace runbox::metrics {

namespace detail {

enum class Type { Counter, Gauge, Histogram, GaugeCallback };

struct Series {
    double value = 0;        ///< counter, gauge
    QList<quint64> inBucket; ///< histogram: observations per bucket (not cumulative), +Inf last
    double sum = 0;          ///< histogram
    quint64 count = 0;       ///< histogram
};

struct Family {
    Type type = Type::Counter;
    QString name;
    QString help;
    QStringList labels;
    QList<double> bounds; ///< histogram: finite upper bounds, increasing
    QMap<QStringList, Series> series;
    std::function<QList<GaugeSample>()> read; ///< GaugeCallback

    /// @p values cut or padded with "" to one value per label.
    QStringList normalized(const QStringList& values) const {
        QStringList out = values.mid(0, labels.size());
        while (out.size() < labels.size())
            out.append(QString());
        return out;
    }
    Series& at(const QStringList& values) {
        const QStringList key = normalized(values);
        auto it = series.find(key);
        if (it == series.end()) {
            Series s;
            if (type == Type::Histogram)
                s.inBucket = QList<quint64>(bounds.size() + 1, 0);
            it = series.insert(key, s);
        }
        return *it;
    }
    const Series* find(const QStringList& values) const {
        auto it = series.constFind(normalized(values));
        return it == series.constEnd() ? nullptr : &*it;
    }
};

} // namespace detail

using detail::Family;
using detail::Type;

void Counter::inc(const QStringList& labelValues, double by) const {
    if (m_family && by >= 0)
        m_family->at(labelValues).value += by;
}

double Counter::value(const QStringList& labelValues) const {
    const detail::Series* s = m_family ? m_family->find(labelValues) : nullptr;
    return s ? s->value : 0;
}

void Gauge::set(const QStringList& labelValues, double value) const {
    if (m_family)
        m_family->at(labelValues).value = value;
}

void Gauge::add(const QStringList& labelValues, double by) const {
    if (m_family)
        m_family->at(labelValues).value += by;
}

double Gauge::value(const QStringList& labelValues) const {
    const detail::Series* s = m_family ? m_family->find(labelValues) : nullptr;
    return s ? s->value : 0;
}

void Histogram::observe(const QStringList& labelValues, double value) const {
    if (!m_family || std::isnan(value))
        return;
    detail::Series& s = m_family->at(labelValues);
    qsizetype bucket = 0;
    while (bucket < m_family->bounds.size() && value > m_family->bounds[bucket])
        ++bucket;
    ++s.inBucket[bucket];
    s.sum += value;
    ++s.count;
}

quint64 Histogram::count(const QStringList& labelValues) const {
    const detail::Series* s = m_family ? m_family->find(labelValues) : nullptr;
    return s ? s->count : 0;
}

MetricsRegistry::MetricsRegistry() = default;
MetricsRegistry::~MetricsRegistry() = default;

namespace {
bool validName(const QString& name) {
    static const QRegularExpression re(QStringLiteral("^[a-zA-Z_:][a-zA-Z0-9_:]*$"));
    return re.match(name).hasMatch();
}

bool validLabel(const QString& label) {
    static const QRegularExpression re(QStringLiteral("^[a-zA-Z_][a-zA-Z0-9_]*$"));
    return re.match(label).hasMatch() && !label.startsWith(QLatin1String("__"));
}

QByteArray typeName(Type type) {
    switch (type) {
    case Type::Counter:
        return "counter";
    case Type::Histogram:
        return "histogram";
    case Type::Gauge:
    case Type::GaugeCallback:
        return "gauge";
    }
    return "untyped";
}

/// HELP text: backslash and line feed escaped (exposition format 0.0.4).
QByteArray escapeHelp(const QString& help) {
    QString out;
    out.reserve(help.size());
    for (const QChar c : help) {
        if (c == QLatin1Char('\\'))
            out += QLatin1String("\\\\");
        else if (c == QLatin1Char('\n'))
            out += QLatin1String("\\n");
        else
            out += c;
    }
    return out.toUtf8();
}

/// `{a="x",b="y"}` (with @p extra appended, e.g. `le`), or "" without labels.
QByteArray labelSet(const QStringList& names, const QStringList& values,
                    const QString& extraName = {}, const QString& extraValue = {}) {
    QStringList parts;
    for (qsizetype i = 0; i < names.size(); ++i)
        parts.append(QStringLiteral("%1=\"%2\"")
                         .arg(names[i], MetricsRegistry::escapeLabelValue(values.value(i))));
    if (!extraName.isEmpty())
        parts.append(QStringLiteral("%1=\"%2\"").arg(extraName, extraValue));
    if (parts.isEmpty())
        return {};
    return '{' + parts.join(QLatin1Char(',')).toUtf8() + '}';
}
} // namespace

QString MetricsRegistry::escapeLabelValue(const QString& value) {
    QString out;
    out.reserve(value.size());
    for (const QChar c : value) {
        if (c == QLatin1Char('\\'))
            out += QLatin1String("\\\\");
        else if (c == QLatin1Char('"'))
            out += QLatin1String("\\\"");
        else if (c == QLatin1Char('\n'))
            out += QLatin1String("\\n");
        else
            out += c;
    }
    return out;
}

QByteArray MetricsRegistry::formatValue(double value) {
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "+Inf" : "-Inf";
    if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) // 2^53
        return QByteArray::number(qint64(value));
    return QString::number(value, 'g', QLocale::FloatingPointShortest).toLatin1();
}

Family* MetricsRegistry::add(int type, const QString& name, const QString& help,
                             const QStringList& labelNames, const QList<double>& bounds) {
    if (!validName(name))
        return nullptr;
    for (const QString& label : labelNames)
        if (!validLabel(label) || (Type(type) == Type::Histogram && label == QLatin1String("le")))
            return nullptr;
    for (qsizetype i = 1; i < bounds.size(); ++i)
        if (!(bounds[i] > bounds[i - 1]))
            return nullptr;
    if (const auto it = m_families.constFind(name); it != m_families.constEnd()) {
        Family* existing = it->get();
        const bool same = existing->type == Type(type) && existing->labels == labelNames &&
                          existing->bounds == bounds;
        return same ? existing : nullptr;
    }
    auto family = std::make_shared<Family>();
    family->type = Type(type);
    family->name = name;
    family->help = help;
    family->labels = labelNames;
    family->bounds = bounds;
    m_families.insert(name, family);
    m_order.append(family.get());
    return family.get();
}

Counter MetricsRegistry::addCounter(const QString& name, const QString& help,
                                    const QStringList& labelNames) {
    return Counter(add(int(Type::Counter), name, help, labelNames, {}));
}

Gauge MetricsRegistry::addGauge(const QString& name, const QString& help,
                                const QStringList& labelNames) {
    return Gauge(add(int(Type::Gauge), name, help, labelNames, {}));
}

Histogram MetricsRegistry::addHistogram(const QString& name, const QString& help,
                                        const QStringList& labelNames,
                                        const QList<double>& upperBounds) {
    return Histogram(add(int(Type::Histogram), name, help, labelNames, upperBounds));
}

void MetricsRegistry::addGaugeCallback(const QString& name, const QString& help,
                                       const QStringList& labelNames,
                                       std::function<QList<GaugeSample>()> read) {
    if (Family* family = add(int(Type::GaugeCallback), name, help, labelNames, {}))
        family->read = std::move(read);
}

QByteArray MetricsRegistry::exposition() const {
    QByteArray out;
    for (const Family* f : m_order) {
        const QByteArray name = f->name.toUtf8();
        out += "# HELP " + name + ' ' + escapeHelp(f->help) + '\n';
        out += "# TYPE " + name + ' ' + typeName(f->type) + '\n';
        if (f->type == Type::GaugeCallback) {
            QMap<QStringList, double> samples; // sorted, one per label set
            if (f->read)
                for (const GaugeSample& s : f->read())
                    samples.insert(f->normalized(s.labelValues), s.value);
            for (auto it = samples.cbegin(); it != samples.cend(); ++it)
                out += name + labelSet(f->labels, it.key()) + ' ' + formatValue(it.value()) + '\n';
            continue;
        }
        // A family without labels always has its one series, 0 until something happened.
        QMap<QStringList, detail::Series> series = f->series;
        if (f->labels.isEmpty() && series.isEmpty()) {
            detail::Series zero;
            zero.inBucket = QList<quint64>(f->bounds.size() + 1, 0);
            series.insert(QStringList(), zero);
        }
        for (auto it = series.cbegin(); it != series.cend(); ++it) {
            const detail::Series& s = it.value();
            if (f->type != Type::Histogram) {
                out += name + labelSet(f->labels, it.key()) + ' ' + formatValue(s.value) + '\n';
                continue;
            }
            quint64 cumulative = 0;
            for (qsizetype b = 0; b <= f->bounds.size(); ++b) {
                cumulative += s.inBucket.value(b);
                const QString le = b < f->bounds.size()
                                       ? QString::fromLatin1(formatValue(f->bounds[b]))
                                       : QStringLiteral("+Inf");
                out += name + "_bucket" + labelSet(f->labels, it.key(), QStringLiteral("le"), le) +
                       ' ' + QByteArray::number(cumulative) + '\n';
            }
            out += name + "_sum" + labelSet(f->labels, it.key()) + ' ' + formatValue(s.sum) + '\n';
            out += name + "_count" + labelSet(f->labels, it.key()) + ' ' +
                   QByteArray::number(s.count) + '\n';
        }
    }
    return out;
}

} // namespace runbox::metrics
