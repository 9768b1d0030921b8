#pragma once
// Runs core work off the UI thread. Each job belongs to a channel ("scan", "entry", "diff"...):
// starting a job cancels the channel's previous one, and a result that arrives for a job that is no
// longer the channel's current one is dropped, so a slow old decode never overwrites a newer view.
// Results come back by value on the UI thread; progress is sampled by a timer (rate-limited).
#include <QElapsedTimer>
#include <QFuture>
#include <QHash>
#include <QObject>
#include <QThreadPool>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <memory>
#include <type_traits>
#include <utility>

#include "ui/jobs/job_control.hpp"

namespace kiln::ui {

class JobRunner : public QObject {
    Q_OBJECT
public:
    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override;  // cancels everything and waits: work never outlives the runner

    // work: R(JobControl&) runs on the pool; done: void(R) runs on the UI thread if still current.
    template <class Work, class Done>
    quint64 start(const QString& channel, const QString& label, Work work, Done done) {
        using R = std::invoke_result_t<Work&, JobControl&>;
        auto ctl = std::make_shared<JobControl>();
        const quint64 id = begin(channel, label, ctl);
        QFuture<R> f = QtConcurrent::run(&pool_, [ctl, work = std::move(work)]() mutable {
            yieldToUiThread();
            return work(*ctl);
        });
        // Always delivered from the event loop, never inside start(): a job that ends before then() is
        // attached would otherwise run `done` before the caller's own next line (its "Reading…" status
        // overwriting the result, a test's wait missing the signal).
        f.then(this, [this, id, channel, done = std::move(done)](R r) mutable {
            QMetaObject::invokeMethod(
                this,
                [this, id, channel, done = std::move(done), r = std::move(r)]() mutable {
                    if (finish(channel, id)) done(std::move(r));
                },
                Qt::QueuedConnection);
        });
        return id;
    }

    void cancel(const QString& channel);
    void cancelAll();
    bool isBusy() const { return !active_.isEmpty(); }
    bool isRunning(const QString& channel) const { return active_.contains(channel); }
    quint64 droppedCount() const { return dropped_; }
    // Jobs started on `channel` since the runner was made (how many times a view ran its work).
    quint64 startedCount(const QString& channel) const { return started_.value(channel); }
    // Blocks until the pool is idle (tests and shutdown only).

signals:
    void progress(const QString& label, qint64 done, qint64 total);
    void busyChanged(bool busy);

private:
    // Lowers the calling pool thread's scheduling priority once (the threads core work starts from it
    // inherit it): on a machine with fewer cores than busy threads, the UI thread runs first.
    static void yieldToUiThread();
    struct Active {
        quint64 id = 0;
        QString label;
        std::shared_ptr<JobControl> ctl;
    };
    quint64 begin(const QString& channel, const QString& label, std::shared_ptr<JobControl> ctl);
    bool finish(const QString& channel, quint64 id);
    void sample();

    QThreadPool pool_;
    QHash<QString, Active> active_;
    QHash<QString, quint64> started_;
    QTimer tick_;
    quint64 next_id_ = 1;
    quint64 dropped_ = 0;
};

}  // namespace kiln::ui
