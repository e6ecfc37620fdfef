// Running a sweep: progress lines, the simulate-once-cost-many reuse of functional records, each
// configuration simulated on a worker, pending parts found, the memory checked, the workers run.
#include "tools/commands/sweep_internal.h"
#include "tools/commands/captured_notes.h"

namespace tbdr::sweep {

// ---- progress -----------------------------------------------------------------------------------

// Progress on stderr (not with --quiet). On a terminal: one line redrawn in place. Otherwise (a Slurm
// or CI log, which shows a redrawn line only when the job ends): a plain line at the start, then
// whenever another 5 % of the configurations is done or 10 s have passed, and at the end.
class Progress {
 public:
  Progress(bool enabled, bool terminal, size_t total, size_t resumed)
      : m_enabled(enabled), m_terminal(terminal), m_total(total), m_resumed(resumed),
        m_start(std::chrono::steady_clock::now()), m_last_line(m_start) {}
  void draw(size_t done, size_t failed) {
    if (!m_enabled) return;
    const auto now = std::chrono::steady_clock::now();
    if (m_terminal) {
      std::cerr << "\r" << line(done, failed, now) << "\x1b[K" << std::flush;
      return;
    }
    const size_t step = m_total ? done * 20 / m_total : 20;  // 5 % steps
    if (m_lines > 0 && step == m_last_step && now - m_last_line < std::chrono::seconds(10)) return;
    std::cerr << line(done, failed, now) << "\n" << std::flush;
    ++m_lines;
    m_last_step = step;
    m_last_line = now;
  }
  void finish() {
    if (m_enabled && m_terminal) std::cerr << "\n" << std::flush;
  }

 private:
  std::string line(size_t done, size_t failed, std::chrono::steady_clock::time_point now) const {
    const double elapsed = std::chrono::duration<double>(now - m_start).count();
    const size_t simulated = done - m_resumed, left = m_total - done;
    std::string text = "sweep: " + std::to_string(done) + "/" + std::to_string(m_total) + " configurations";
    std::string notes = m_terminal ? "" : std::to_string(m_total ? done * 100 / m_total : 100) + " %";
    if (m_resumed) notes += (notes.empty() ? "" : ", ") + std::to_string(m_resumed) + " resumed";
    if (!notes.empty()) text += " (" + notes + ")";
    text += ", " + std::to_string(failed) + " failed, elapsed " + minutes_seconds(elapsed) + ", ETA ";
    return text + (simulated ? minutes_seconds(elapsed / double(simulated) * double(left)) : std::string("?"));
  }

  bool m_enabled, m_terminal;
  size_t m_total, m_resumed;
  std::chrono::steady_clock::time_point m_start, m_last_line;
  size_t m_lines = 0, m_last_step = 0;
};

// Wall time of each simulated configuration (one worker each), for the closing summary.
struct ConfigurationTimes {
  double total_seconds = 0, slowest_seconds = 0;
  size_t count = 0, slowest_index = 0;
  void add(size_t index, double seconds) {
    total_seconds += seconds;
    ++count;
    if (seconds > slowest_seconds) slowest_seconds = seconds, slowest_index = index;
  }
  std::string summary(double wall_seconds, unsigned workers) const {
    if (count == 0) return "sweep: nothing left to simulate\n";
    char text[256];
    std::snprintf(text, sizeof text,
                  "sweep: %zu configuration%s simulated in %s on %u worker%s, %.2f s per configuration "
                  "(slowest: configuration %zu, %.2f s)\n",
                  count, count == 1 ? "" : "s", minutes_seconds(wall_seconds).c_str(), workers, workers == 1 ? "" : "s",
                  total_seconds / double(count), slowest_index, slowest_seconds);
    return text;
  }
};


// ---- simulate once, cost many ------------------------------------------------------------------

// The configurations grouped by functional configuration (models::functional_part): for each group
// and trace the first run simulates and keeps its functional record, the others re-cost it
// (sim/pipeline.h cost_recorded: the same report, byte for byte). Records are held while their
// group has configurations left, within the budget: one that does not fit is dropped, and its
// group's later configurations simulate that trace again. Thread-safe: a group's first run of a
// trace holds that trace's entry while it simulates; re-costings only read the record.
class Reuse {
 public:
  Reuse(const std::vector<uint32_t>& functional_group, const std::vector<size_t>& pending, size_t traces,
        uint64_t budget_bytes)
      : m_group_of(functional_group.size(), 0), m_budget(budget_bytes) {
    std::map<uint32_t, size_t> groups;  // functional group (Prepared) -> group of the pending ones
    for (size_t index : pending) {
      const auto [it, added] = groups.emplace(functional_group[index], m_groups.size());
      if (added) m_groups.emplace_back().entries.resize(traces);
      for (std::unique_ptr<Entry>& e : m_groups[it->second].entries)
        if (!e) e = std::make_unique<Entry>();
      m_group_of[index] = it->second;
      ++m_groups[it->second].remaining;
    }
  }

  // Group by group, each in index order, so few groups hold records at once.
  void order(std::vector<size_t>& pending) const {
    std::stable_sort(pending.begin(), pending.end(), [&](size_t a, size_t b) { return m_group_of[a] < m_group_of[b]; });
  }

  RunStats stats(size_t index, size_t t, const Trace& trace, const models::ModelSet& models) {
    Entry& e = *m_groups[m_group_of[index]].entries[t];
    std::unique_lock<std::mutex> lock(e.mutex);
    if (e.state == Entry::State::unmade) return simulate_and_keep(e, trace, models);
    const bool kept = e.state == Entry::State::kept;
    lock.unlock();  // a kept record stays until this configuration is finished()
    count(kept ? &Reuse::m_costed : &Reuse::m_simulated);
    return kept ? cost_recorded(trace, e.record, models) : simulate(trace, models, one_thread(), nullptr);
  }

  // A configuration's rows are written; its group's last one frees the group's records.
  void finished(size_t index) {
    Group& g = m_groups[m_group_of[index]];
    std::lock_guard<std::mutex> lock(m_mutex);
    if (--g.remaining > 0) return;
    for (std::unique_ptr<Entry>& e : g.entries) {
      if (e->state == Entry::State::kept) m_held -= e->bytes;
      e->record = FunctionalRecord{};
    }
  }

  std::string summary() const {
    auto mib = [](uint64_t bytes) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f", double(bytes) / (1024.0 * 1024.0));
      return std::string(buf);
    };
    auto count_of = [](size_t n, const std::string& word) {
      return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
    };
    return "reuse: " + count_of(m_groups.size(), "functional configuration") + ", " +
           count_of(m_simulated, "simulation") + ", " + count_of(m_costed, "re-costing") + " from records (" +
           std::to_string(m_dropped) + " over the budget); records held at most " + mib(m_peak) + " MiB of the " +
           mib(m_budget) + " MiB budget\n";
  }

 private:
  struct Entry {
    enum class State { unmade, kept, dropped, failed };
    std::mutex mutex;
    State state = State::unmade;
    FunctionalRecord record;
    uint64_t bytes = 0;
  };
  struct Group {
    std::vector<std::unique_ptr<Entry>> entries;  // per trace
    size_t remaining = 0;                         // configurations not finished
  };

  static SimOptions one_thread() {
    SimOptions options;
    options.threads = 1;  // one thread per configuration: the sweep's workers use the cores
    return options;
  }

  void count(size_t Reuse::*counter) {
    std::lock_guard<std::mutex> lock(m_mutex);
    ++(this->*counter);
  }

  // The group's first run of the trace (its entry locked): simulates, keeping the record if it fits.
  RunStats simulate_and_keep(Entry& e, const Trace& trace, const models::ModelSet& models) {
    e.state = Entry::State::failed;  // until the record is made: the others simulate (and fail) alone
    count(&Reuse::m_simulated);
    RunStats out;
    try {
      out = simulate(trace, models, one_thread(), nullptr, &e.record);
    } catch (...) {
      e.record = FunctionalRecord{};
      throw;
    }
    e.bytes = e.record.memory_bytes();
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_held + e.bytes <= m_budget) {
      e.state = Entry::State::kept;
      m_held += e.bytes;
      m_peak = std::max(m_peak, m_held);
    } else {
      e.state = Entry::State::dropped;
      e.record = FunctionalRecord{};
      ++m_dropped;
    }
    return out;
  }

  std::vector<size_t> m_group_of;  // per configuration index
  std::vector<Group> m_groups;
  uint64_t m_budget;
  std::mutex m_mutex;  // the counters and m_held
  uint64_t m_held = 0, m_peak = 0;
  size_t m_simulated = 0, m_costed = 0, m_dropped = 0;
};

// One (trace, configuration)'s rows from its run: a row per pass (its attachment records as attachment
// rows), then the total row; the cells of report_json's frames and totals (its header is not needed).
void report_rows(const RunStats& stats, const FlatRow& base, RowBuilder& builder, std::vector<FlatRow>& rows,
                 std::vector<FlatRow>& attachments) {
  double frame_cycles = 0, frame_ms = 0;
  for (size_t f = 0; f < stats.frames.size(); ++f) {
    const FrameStats& frame = stats.frames[f];
    frame_cycles += frame.frame_cycles;
    frame_ms += frame.clock_mhz > 0 ? frame.frame_cycles / (frame.clock_mhz * 1000.0) : 0.0;
    for (size_t pi = 0; pi < frame.passes.size(); ++pi) {
      const PassStats& pass = frame.passes[pi];
      if (pass.type == "render") {  // the passes report_json gives attachment records
        for (size_t a = 0; a < pass.attachments.size(); ++a) {
          builder.start(base);
          builder.set("frame", f);
          builder.set("pass", pi);
          builder.set("name", pass.name);  // the pass's name, as in results.csv
          builder.set("attachment", a);
          attachment_cells(pass.attachments[a], builder);
          attachments.push_back(builder.take());
        }
      }
      builder.start(base);
      builder.set("row", "pass");
      builder.set("frame", f);
      builder.set("pass", pi);
      pass_cells(pass, builder);
      rows.push_back(builder.take());
    }
  }
  builder.start(base);
  builder.set("row", "total");
  totals_cells(stats, builder);
  builder.set("frame_cycles", frame_cycles);
  builder.set("frame_ms", frame_ms);
  rows.push_back(builder.take());
}

// The part file's text (tools/doc/sweeps.md "Resuming", "What the output folder holds") into `part.text`, as
// ordered_json's dump() of the part object; the rows are written once, then hashed where they lie.
void part_text(size_t index, const Prepared& p, const std::vector<FlatRow>& rows, const std::vector<FlatRow>& attachments,
               PartWriter& part) {
  // The head, as ordered_json dumps {"format", "version", "index", "assignments", "sweep_fnv1a64",
  // "configuration_fnv1a64", "inputs"} (dumping a copy of the inputs for every part was a tenth of its cost).
  std::string& text = part.text;
  text = "{\"format\":\"tbdrsim-sweep-part\",\"version\":";
  text += std::to_string(k_part_version);
  text += ",\"index\":";
  text += std::to_string(index);
  text += ",\"assignments\":";
  text += ojson(p.configurations[index]).dump();
  text += ",\"sweep_fnv1a64\":\"";
  text += p.sweep_hash;  // hex digits: nothing to escape
  text += "\",\"configuration_fnv1a64\":\"";
  text += p.resolved_hash[index];
  text += "\",\"inputs\":";
  text += p.inputs_text;
  text += ',';
  part_rows_text(rows, attachments, part);
  part.text += "}\n";
}

ConfigurationRows simulate_configuration(size_t index, const SweepOptions& o, const Prepared& p, Reuse* reuse, RowKeys& keys,
                                         PartWriter& part, size_t& failures) {
  std::unique_ptr<const models::ModelSet> built;  // when resolving kept none
  if (p.models.empty()) built = std::make_unique<const models::ModelSet>(models::build_models(make_configuration(*p.preset, p.configurations[index])));
  const models::ModelSet& models = p.models.empty() ? *built : *p.models[index];
  ConfigurationRows out;
  RowBuilder builder(keys, &part.successors);
  for (size_t t = 0; t < p.traces.size(); ++t) {
    const Trace& trace = p.traces[t];
    builder.start({});
    builder.set("trace", o.traces[t]);
    builder.set("config_index", index);
    set_columns(models.resolved, builder);
    const FlatRow base = builder.take();
    std::vector<FlatRow> rows, attachments;
    try {
      SimOptions options;
      options.threads = 1;  // one thread per configuration: the sweep's workers use the cores
      const RunStats stats = reuse ? reuse->stats(index, t, trace, models) : simulate(trace, models, options, nullptr);
      report_rows(stats, base, builder, rows, attachments);
    } catch (const std::exception& e) {
      ++failures;
      rows.clear();
      attachments.clear();
      builder.start(base);
      builder.set("row", "total");
      builder.set("error", e.what());
      rows.push_back(builder.take());
    }
    for (FlatRow& r : rows) out.rows.push_back(std::move(r));
    for (FlatRow& r : attachments) out.attachments.push_back(std::move(r));
  }
  part_text(index, p, out.rows, out.attachments, part);
  for (FlatRow& r : out.rows) as_read_back(r);
  for (FlatRow& r : out.attachments) as_read_back(r);
  return out;
}


// This shard's configurations (`mine`) and those without a valid part (`pending`): a group's part damaged,
// edited, foreign, or simulated from input files that changed since has its configurations simulated again.
void find_pending(const fs::path& dir, const Prepared& p, const PartGroups& groups, std::pair<unsigned, unsigned> shard,
                  bool quiet, std::vector<size_t>& mine, std::vector<size_t>& pending) {
  LayoutCache layouts;
  for (size_t i = 0; i < p.configurations.size(); ++i)
    if (p.shard_of[i] == shard.first) mine.push_back(i);
  for (const auto& [head, members] : groups.members) {
    if (p.shard_of[head] != shard.first) continue;  // shards hold whole functional groups
    std::vector<PartExpectation> expects;
    for (size_t i : members)
      expects.push_back({i, p.sweep_hash, p.configurations[i], p.resolved_hash[i], &p.inputs, p.traces.size(), &layouts});
    std::string problem;
    const fs::path path = dir / "parts" / part_name(head);
    (void)read_checked_group(path, expects, problem);
    if (problem.empty()) continue;
    pending.insert(pending.end(), members.begin(), members.end());
    if (problem != "missing" && !quiet)
      std::cerr << "sweep: " << path.string() << ": " << problem << "; simulating "
                << (members.size() == 1 ? "configuration " + std::to_string(head)
                                        : "its " + std::to_string(members.size()) + " configurations") << " again\n";
  }
  std::sort(pending.begin(), pending.end());
}

// The part texts of the groups being simulated; the configuration finishing a group writes its file.
class GroupTexts {
 public:
  GroupTexts(const PartGroups& groups, fs::path parts) : m_groups(groups), m_parts(std::move(parts)) {}
  void add(size_t index, const std::string& text) {
    const size_t head = m_groups.first[index];
    const std::vector<size_t>& members = m_groups.members.at(head);
    std::unique_lock<std::mutex> lock(m_mutex);
    Open& open = m_open[head];
    if (open.texts.empty()) open.texts.resize(members.size());
    open.texts[size_t(std::lower_bound(members.begin(), members.end(), index) - members.begin())] = text;
    if (++open.done < members.size()) return;
    std::string file;
    for (const std::string& t : open.texts) file += t;
    m_open.erase(head);
    lock.unlock();
    write_atomically(m_parts / part_name(head), file);
  }

 private:
  struct Open {
    std::vector<std::string> texts;  // per member
    size_t done = 0;
  };
  const PartGroups& m_groups;
  fs::path m_parts;
  std::mutex m_mutex;
  std::map<size_t, Open> m_open;
};

// The sweep's memory before any folder is written (tools/doc/cli.md "Memory budget"): the largest estimate of
// one configuration on one trace (one thread each) x the workers, plus the record budget when reusing.
// Configurations differing only in parameters the estimate does not read are estimated once
// (Prepared::estimated keeps one of each).
void check_sweep_memory(const SweepOptions& o, const Prepared& p) {
  const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  SimOptions one_thread;
  one_thread.threads = 1;
  MemoryEstimate worst;
  uint64_t inputs_bytes = 0;  // p.estimated's texts, held twice while resolving (the list and its set)
  for (const std::string& text : p.estimated) {
    inputs_bytes += 2 * (32 + text.size() + 1);
    const nlohmann::json inputs = nlohmann::json::parse(text);
    for (const Trace& trace : p.traces) {
      MemoryEstimate estimate = estimate_memory(trace, inputs, one_thread);
      if (worst.terms.empty() || estimate.total() > worst.total()) worst = std::move(estimate);
    }
  }
  const uint64_t workers = std::min<uint64_t>(jobs, std::max<size_t>(1, p.configurations.size()));
  for (MemoryTerm& term : worst.terms) {
    term.bytes = term.bytes > ~uint64_t(0) / workers ? ~uint64_t(0) : term.bytes * workers;
    term.cause = "-j " + std::to_string(workers) + " x " + term.cause;
  }
  MemoryTerm configurations = configurations_term(o, p.configurations);  // held once, whatever -j
  configurations.bytes += inputs_bytes;
  configurations.cause += ", " + std::to_string(p.estimated.size()) + " distinct memory-estimate inputs";
  worst.terms.push_back(std::move(configurations));
  if (!p.models.empty())
    worst.terms.push_back({"configurations' models", std::to_string(p.models.size()) + " model sets kept from checking to running",
                           p.models.size() * k_kept_model_set_bytes});
  if (o.reuse)
    worst.terms.push_back({"functional records", "--record-budget " + std::to_string(o.record_budget_mib) + " MiB",
                           o.record_budget_mib << 20});
  check_memory_budget(worst, o.max_memory, "sweep");
}

size_t run_sweep(const SweepOptions& o) {
  if (o.out.empty()) throw InputError("sweep", "--out DIR is required");
  if (o.traces.empty()) throw InputError("sweep", "no trace given");
  const auto [shard, shards] = parse_shard(o.shard);
  const Prepared p = prepare(o, shard, shards);
  check_sweep_memory(o, p);

  const fs::path dir(o.out);
  prepare_folder(dir, p.fingerprint);
  remove_stale_temporaries(dir);
  remove_stale_temporaries(dir / "parts");

  std::vector<size_t> mine, pending;
  const PartGroups groups = part_groups(p.functional_group);
  find_pending(dir, p, groups, {shard, shards}, o.quiet, mine, pending);
  size_t resumed = mine.size() - pending.size();
  std::unique_ptr<Reuse> reuse;
  if (o.reuse) {
    reuse = std::make_unique<Reuse>(p.functional_group, pending, p.traces.size(), o.record_budget_mib << 20);
    reuse->order(pending);  // functional group by group, so their part groups too
  } else {  // part group by group: few part texts held at once
    std::stable_sort(pending.begin(), pending.end(), [&](size_t a, size_t b) { return groups.first[a] < groups.first[b]; });
  }

  unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = unsigned(std::min<size_t>(jobs, pending.size()));
  Progress progress(!o.quiet, ::isatty(STDERR_FILENO), mine.size(), resumed);
  ConfigurationTimes times;
  const auto sweep_start = std::chrono::steady_clock::now();
  std::mutex mutex;
  std::condition_variable changed;
  size_t done = resumed, failed = 0, workers_left = jobs;
  std::exception_ptr fatal;
  std::atomic<size_t> next{0};
  KeptRows kept;  // the rows of the parts written, for write_results
  LayoutFiles layouts(dir / "parts");
  GroupTexts group_texts(groups, dir / "parts");
  auto worker = [&] {
    PartWriter part{layouts, {}, {}, {}, {}, {}};  // each part's text, the buffer kept
    for (;;) {
      const size_t k = next++;
      if (k >= pending.size()) break;
      const size_t index = pending[k];
      try {
        size_t failures = 0;
        const auto start = std::chrono::steady_clock::now();
        ConfigurationRows rows = simulate_configuration(index, o, p, reuse.get(), kept.keys, part, failures);
        group_texts.add(index, part.text);
        if (reuse) reuse->finished(index);
        {
          std::lock_guard<std::mutex> lock(kept.mutex);
          kept.by_index.emplace(index, std::move(rows));
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::lock_guard<std::mutex> lock(mutex);
        times.add(index, seconds);
        ++done;
        failed += failures ? 1 : 0;
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!fatal) fatal = std::current_exception();
        next = pending.size();
      }
      // Progress lines want every configuration; without them (--quiet) the main thread waits for the
      // workers' end only: a wake-up per configuration cost a re-costing a third of its time in futex calls.
      if (!o.quiet) changed.notify_all();
    }
    std::lock_guard<std::mutex> lock(mutex);
    --workers_left;
    changed.notify_all();
  };
  // The opening line before any worker runs: drawn first in the loop below, it raced the first
  // configurations, which (re-costed from a record) can finish before the loop takes the mutex.
  progress.draw(done, failed);
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < jobs; ++j) threads.emplace_back(worker);
  {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      progress.draw(done, failed);
      if (workers_left == 0) break;
      changed.wait_for(lock, std::chrono::seconds(1));
    }
  }
  for (std::thread& t : threads) t.join();
  progress.finish();
  if (fatal) std::rethrow_exception(fatal);

  // Failures of resumed parts count too: the results are the whole shard's.
  const auto [rows, failed_runs] = write_results(dir, mine, groups, &kept);
  if (!o.quiet)
    std::cout << "sweep: " << mine.size() << " configuration" << (mine.size() == 1 ? "" : "s") << " x " << o.traces.size()
              << " trace" << (o.traces.size() == 1 ? "" : "s") << " (" << resumed << " resumed, " << failed_runs
              << " failed runs), " << rows << " rows in " << (dir / "results.csv").string() << ", results.json, attachments.csv\n"
              << times.summary(std::chrono::duration<double>(std::chrono::steady_clock::now() - sweep_start).count(), jobs);
  if (!o.quiet && reuse) std::cout << reuse->summary();
  return failed_runs;
}

}  // namespace tbdr::sweep
