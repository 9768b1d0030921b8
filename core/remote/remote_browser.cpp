#include "remote/remote_browser.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>

#include "remote/remote_graph.hpp"
#include "remote/remote_value.hpp"
#include "util/bounded_queue.hpp"
#include "util/cpus.hpp"

namespace kiln::remote {

const char* remote_state_name(RemoteState s) {
    switch (s) {
        case RemoteState::graph: return "graph";
        case RemoteState::json: return "json";
        case RemoteState::corrupt: return "corrupt";
        case RemoteState::foreign: return "foreign";
        case RemoteState::missing: return "missing";
    }
    return "missing";
}

RemoteEntry classify_remote_value(std::string redis_key, std::optional<std::string> value, bool keep_value) {
    return classify_remote_value(std::move(redis_key), value ? std::optional<std::string_view>(*value) : std::nullopt,
                                 keep_value);
}

RemoteEntry classify_remote_value(std::string redis_key, std::optional<std::string_view> value, bool keep_value) {
    RemoteEntry e;
    e.redis_key = std::move(redis_key);
    auto parsed = parse_remote_key(e.redis_key);
    if (parsed) {
        e.cache_id = std::move(parsed->cache_id);
        e.key = std::move(parsed->key);
    }
    if (!value) {
        e.state = RemoteState::missing;
        return e;
    }
    e.value_bytes = value->size();
    if (!parsed) {
        e.state = RemoteState::foreign;
        return e;
    }
    if (value_kind_for(e.cache_id) == RemoteValueKind::graph_pickle) {
        auto g = decode_graph_value(*value);
        if (!g) {
            e.state = RemoteState::corrupt;
            e.problem = g.error().str();
            return e;
        }
        e.state = RemoteState::graph;
        e.time_taken_ms = g->time_taken_ms;
        if (keep_value) e.pickle = std::move(g->pickle);
        return e;
    }
    auto j = decode_json_value(*value);
    if (!j) {
        e.state = RemoteState::corrupt;
        e.problem = j.error().str();
        return e;
    }
    e.state = RemoteState::json;
    if (j->is_object()) {
        if (auto t = j->find("time_taken_ms"); t != j->end() && t->is_number()) e.time_taken_ms = t->get<long long>();
    }
    if (keep_value) e.json = std::move(j).value();
    return e;
}

namespace {

// Helper threads kept for a whole browse: each batch is a job that the caller and every helper run
// together (thread creation per batch cost more than small batches' decoding).
class BatchWorkers {
public:
    explicit BatchWorkers(unsigned helpers) {
        for (unsigned i = 0; i < helpers; ++i) threads_.emplace_back([this] { loop(); });
    }
    ~BatchWorkers() {
        {
            std::lock_guard lk(m_);
            quit_ = true;
        }
        wake_.notify_all();
        for (auto& t : threads_) t.join();
    }
    // Runs `job` on this thread and on every helper; returns when all of them have returned.
    void run(const std::function<void()>& job) {
        {
            std::lock_guard lk(m_);
            job_ = &job;
            ++generation_;
            busy_ = threads_.size();
        }
        wake_.notify_all();
        job();
        std::unique_lock lk(m_);
        done_.wait(lk, [&] { return busy_ == 0; });
        job_ = nullptr;
    }

private:
    void loop() {
        std::uint64_t seen = 0;
        std::unique_lock lk(m_);
        for (;;) {
            wake_.wait(lk, [&] { return quit_ || generation_ != seen; });
            if (quit_) return;
            seen = generation_;
            const auto* job = job_;
            lk.unlock();
            (*job)();
            lk.lock();
            if (--busy_ == 0) done_.notify_all();
        }
    }
    std::mutex m_;
    std::condition_variable wake_, done_;
    const std::function<void()>* job_ = nullptr;
    std::uint64_t generation_ = 0;
    std::size_t busy_ = 0;
    bool quit_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace

Result<BrowseTotals> browse_remote(RedisClient& client, const BrowseOptions& options, const BatchSink& sink) {
    // Two stages so that the server, the network and the decoding overlap: a fetcher thread runs
    // SCAN and the pipelined GETs, this thread unwraps each batch and hands it to the sink. At
    // most one fetched batch waits, so memory stays bounded by three batches.
    struct Raw {
        std::vector<std::string> keys;
        std::unique_ptr<ValueBlock> values;
    };
    std::vector<std::unique_ptr<ValueBlock>> spare;  // blocks handed back by this thread
    std::mutex spare_mu;
    BoundedQueue<Raw> ready(1);         // one batch fetched ahead; closed by the fetcher when done, by us on an error
    Status fetch_status = ok_status();  // the fetcher's; read after join
    std::uint64_t round_trips = 0;      // the fetcher's; read after join

    auto cancelled = [&] { return options.cancel && options.cancel->load(); };
    std::thread fetcher([&] {
        auto run = [&]() -> Status {
            std::unordered_set<std::string> seen;  // SCAN may return a key more than once (rehashing)
            std::vector<std::string> pending;
            auto flush = [&]() -> Status {
                while (!pending.empty()) {
                    std::unique_ptr<ValueBlock> block;
                    {
                        std::lock_guard lk(spare_mu);
                        if (!spare.empty()) {
                            block = std::move(spare.back());
                            spare.pop_back();
                        }
                    }
                    if (!block) block = std::make_unique<ValueBlock>();
                    KILN_CHECK(client.get_many(pending, *block));
                    ++round_trips;
                    if (block->size() == 0)
                        return make_error(Errc::generic, "a batch of values came back empty",
                                          client.endpoint().display());
                    // A block holds a bounded number of bytes: the keys it had no room for go in the
                    // next one (each block holds at least one value).
                    std::vector<std::string> rest(std::make_move_iterator(pending.begin() + block->size()),
                                                  std::make_move_iterator(pending.end()));
                    pending.resize(block->size());
                    if (!ready.push(Raw{std::move(pending), std::move(block)})) return ok_status();  // consumer stopped
                    pending = std::move(rest);
                }
                return ok_status();
            };
            KILN_CHECK(client.scan_all(options.match, options.scan_count, [&](ScanPage& page) -> Result<bool> {
                if (ready.closed()) return false;
                if (cancelled()) return make_error(Errc::cancelled, "browse cancelled");
                ++round_trips;
                for (auto& k : page.keys) {
                    if (!seen.insert(k).second) continue;
                    pending.push_back(std::move(k));
                    if (pending.size() >= options.batch) KILN_CHECK(flush());
                }
                return true;
            }));
            return flush();
        };
        Status st = ok_status();
        try {
            st = run();
        } catch (const std::exception& e) {  // never let the fetcher thread terminate the process
            st = make_error(Errc::generic, std::string("fetching values failed: ") + e.what(),
                            client.endpoint().display());
        }
        fetch_status = std::move(st);
        ready.close();
    });

    const unsigned threads = options.threads ? options.threads : usable_cpus();
    std::optional<BatchWorkers> workers;
    if (threads > 1) workers.emplace(std::min<unsigned>(threads, static_cast<unsigned>(options.batch)) - 1);
    BrowseTotals totals;
    Status sink_status = ok_status();
    for (;;) {
        auto popped = ready.pop();
        if (!popped) break;
        Raw raw = std::move(*popped);
        std::vector<RemoteEntry> batch(raw.keys.size());
        for (size_t i = 0; i < raw.keys.size(); ++i) {
            auto v = raw.values->value(i);
            totals.value_bytes += v ? v->size() : 0;
        }
        // Unwrap (base64, JSON) and decode the batch's values on `threads` threads, each taking
        // the next value: values differ in size by 100x, so no fixed split balances.
        std::atomic<size_t> next{0};
        std::function<void()> work = [&] {
            for (size_t i; (i = next.fetch_add(1)) < batch.size();) {
                RemoteEntry e = classify_remote_value(std::move(raw.keys[i]), raw.values->value(i),
                                                      options.keep_values || options.decode_graphs);
                if (options.decode_graphs && e.state == RemoteState::graph) {
                    std::string origin = e.redis_key;
                    auto g = decode_remote_graph(e, std::move(origin));
                    if (g) e.graph = std::make_shared<const inductor::GraphEntry>(std::move(*g));
                    else e.decode_problem = g.error().str();
                }
                batch[i] = std::move(e);
            }
        };
        if (workers) workers->run(work);
        else work();
        totals.keys += batch.size();
        {
            std::lock_guard lk(spare_mu);
            spare.push_back(std::move(raw.values));
        }
        sink_status = sink(batch);
        if (!sink_status.ok()) break;
        if (cancelled()) {
            sink_status = make_error(Errc::cancelled, "browse cancelled");
            break;
        }
    }
    ready.close();  // a fetcher still scanning stops at its next page
    fetcher.join();
    if (!sink_status.ok()) return std::move(sink_status.error());
    if (!fetch_status.ok()) return std::move(fetch_status.error());
    totals.round_trips = round_trips;
    return totals;
}

}  // namespace kiln::remote
