#pragma once

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace runbox::metrics {

class MetricsRegistry;

/// One sample of a gauge read at scrape time (MetricsRegistry::addGaugeCallback): the values
/// of the family's labels, in the family's label order, and the value.
struct GaugeSample {
    QStringList labelValues;
    double value = 0;
};

namespace detail {
struct Family;
} // namespace detail

/// A counter family's handle (a monotonically increasing total; Prometheus names end in
/// `_total`). Cheap to copy; valid as long as its registry. A default-constructed handle does
/// nothing (a feature whose registry is absent).
class Counter final {
public:
    Counter() = default;
    /// Adds @p by (>= 0; a negative amount is ignored: counters never go down) to the series of
    /// @p labelValues (one per label name, in order; a missing value is "").
    void inc(const QStringList& labelValues = {}, double by = 1) const;
    /// The series' current total (0 for one never incremented): for tests and callers that
    /// mirror a total.
    double value(const QStringList& labelValues = {}) const;

private:
    friend class MetricsRegistry;
    explicit Counter(detail::Family* family) : m_family(family) {}
    detail::Family* m_family = nullptr;
};

/// A gauge family's handle (a value that goes up and down). Same conventions as Counter.
class Gauge final {
public:
    Gauge() = default;
    void set(const QStringList& labelValues, double value) const;
    void add(const QStringList& labelValues, double by) const;
    double value(const QStringList& labelValues = {}) const;

private:
    friend class MetricsRegistry;
    explicit Gauge(detail::Family* family) : m_family(family) {}
    detail::Family* m_family = nullptr;
};

/// A histogram family's handle: observations counted into the family's fixed, cumulative
/// buckets (`le`), with their sum and count. Same conventions as Counter.
class Histogram final {
public:
    Histogram() = default;
    /// Counts @p value (in the family's unit, e.g. seconds) in the series of @p labelValues.
    void observe(const QStringList& labelValues, double value) const;
    /// Observations so far in the series (its `_count`).
    quint64 count(const QStringList& labelValues = {}) const;

private:
    friend class MetricsRegistry;
    explicit Histogram(detail::Family* family) : m_family(family) {}
    detail::Family* m_family = nullptr;
};

/// The agent's metrics (docs/metrics.md): counter, gauge and histogram families with fixed
/// label names, fed by the code where the events happen, and their rendering in the Prometheus
/// text exposition format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/):
/// per family one `# HELP` and one `# TYPE` line, then its samples; label values escaped
/// (backslash, double quote, line feed), HELP text escaped (backslash, line feed); histograms
/// as cumulative `_bucket{le="…"}` series ending with `le="+Inf"`, then `_sum` and `_count`.
///
/// Families are rendered in registration order, series in label-value order, so a scrape is
/// deterministic. Label cardinality is the callers' to bound: label values are taken from
/// fixed sets (states, tiers, route patterns), never from user input. Single-threaded, like
/// the agent's event loop: call it from the thread that owns it.
///
/// Registering a name twice returns the first family again when its type and labels match;
/// a clash (another type or other labels) is a programming error and returns a handle that
/// does nothing.
class MetricsRegistry final {
public:
    MetricsRegistry();
    ~MetricsRegistry();
    MetricsRegistry(const MetricsRegistry&) = delete;
    MetricsRegistry& operator=(const MetricsRegistry&) = delete;

    /// @p name must match `[a-zA-Z_:][a-zA-Z0-9_:]*` and each label `[a-zA-Z_][a-zA-Z0-9_]*`
    /// (not starting with `__`, not `le` for histograms); otherwise a handle that does nothing.
    Counter addCounter(const QString& name, const QString& help,
                       const QStringList& labelNames = {});
    Gauge addGauge(const QString& name, const QString& help, const QStringList& labelNames = {});
    /// @p upperBounds: the finite bucket bounds, strictly increasing (the `+Inf` bucket is
    /// implicit); unsorted or repeated bounds give a handle that does nothing.
    Histogram addHistogram(const QString& name, const QString& help, const QStringList& labelNames,
                           const QList<double>& upperBounds);
    /// A gauge whose samples @p read returns at each scrape (queue length, workspaces in use:
    /// state that another object owns, read when asked rather than mirrored).
    void addGaugeCallback(const QString& name, const QString& help, const QStringList& labelNames,
                          std::function<QList<GaugeSample>()> read);

    /// The whole registry in the text exposition format 0.0.4 (UTF-8, lines ending in '\n').
    QByteArray exposition() const;
    /// The Content-Type of exposition().
    static QByteArray contentType() { return "text/plain; version=0.0.4; charset=utf-8"; }

    /// A label value as the format writes it between its double quotes.
    static QString escapeLabelValue(const QString& value);
    /// A sample value: integers without a fraction or exponent, others in the shortest form
    /// that reads back to the same double; `+Inf`, `-Inf`, `NaN`.
    static QByteArray formatValue(double value);

private:
    detail::Family* add(int type, const QString& name, const QString& help,
                        const QStringList& labelNames, const QList<double>& bounds);

    QList<detail::Family*> m_order;
    QMap<QString, std::shared_ptr<detail::Family>> m_families;
};

} // namespace runbox::metrics
