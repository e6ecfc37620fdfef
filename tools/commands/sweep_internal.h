// The sweep's shared pieces: file and text helpers, grid files, result tables, part validation and
// the prepared sweep, for tools/commands/sweep*.cpp (tools/commands/sweep.h is the interface).
#pragma once

#include "tools/commands/sweep.h"


#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "frontend/import_scene.h"
#include "frontend/staged_file.h"
#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "models/input_file.h"
#include "models/json_duplicates.h"
#include "models/registry.h"
#include "sim/huge_pages.h"
#include "sim/memory_estimate.h"
#include "sim/pipeline.h"
#include "tools/commands/html_report.h"
#include "tools/commands/progress.h"
#include "tools/commands/report.h"
#include "tools/commands/version.h"

namespace tbdr::sweep {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

inline constexpr int k_version = 2;  // sweep.json's and results.json's
// Parts: 2 carried their hashes; 3 writes column names once per part and each row as what it shares with the
// row before it plus its own values (a captured frame's part fell from 21.5 KB to about 3 KB); 4 holds a group of
// configurations in one file, a part object a line (creating a file cost a third of a re-costing: bench/README.md).
inline constexpr int k_part_version = 4;
// Configurations in one part file at most: a run of one functional group's, in index order (part_groups). Creating
// the file is then a 64th of a re-costing's cost at most, and kill -9 loses at most 63 finished configurations.
inline constexpr size_t k_part_group = 64;
// Configurations of one sweep, checked before any is built (tools/doc/cli.md "Limits of input files"): each
// is resolved before any simulates and keeps its assignments, a hash and its line of sweep.json.
inline constexpr size_t k_max_configurations = 1'000'000;


// What a valid part holds (tools/doc/sweeps.md): the hash of its sweep's sweep.json (shard 1/1), its
// configuration's assignments and hash, the hashes of the input files its rows were simulated from,
// and the hash of its rows. A part failing any check is simulated again on resume, named by sweep-merge.
class LayoutCache;
struct PartExpectation {
  size_t index = 0;
  std::string sweep_hash;
  ojson assignments;
  std::string configuration_hash;  // empty: not checked (sweep-merge cannot resolve the preset)
  const ojson* inputs = nullptr;   // null: not checked
  size_t traces = 0;               // total rows expected, one per trace
  LayoutCache* layouts = nullptr;  // the layout files read so far (required)
};

// A folder for imported scenes (glTF/OBJ -> trace), removed when the sweep ends.
struct ImportFolder {
  fs::path path;
  ImportFolder() : path(make_temporary_folder("tbdrsim-sweep")) {}  // named by PID: a later start removes it
  ImportFolder(const ImportFolder&) = delete;
  ImportFolder& operator=(const ImportFolder&) = delete;
  ~ImportFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// What a sweep keeps of each configuration is small: a million of them (the cap) once took 2.5 GB
// when each kept its resolved parameter tree (about 13 KB); now its assignments, the hash of its
// resolved parameters and its functional group (bench/README.md "Sweeps: memory per configuration").
struct Prepared {
  std::unique_ptr<ImportFolder> imports;
  std::vector<std::vector<std::string>> configurations;
  std::vector<std::string> resolved_hash;    // per configuration: fnv1a64 of its resolved parameters, hex
  std::vector<uint32_t> functional_group;    // per configuration: index of its models::functional_part
  std::vector<std::string> estimated;        // each distinct memory_estimate_inputs' text, in order of first use
  std::vector<Trace> traces;
  std::string fingerprint;  // sweep.json
  std::string sweep_hash;   // of sweep.json with shard 1/1: the same in every shard's parts
  ojson inputs;             // [{path, fnv1a64}] of every input file read (imports' outputs left out)
  std::string inputs_text;  // inputs.dump(), as every part writes it
  std::vector<unsigned> shard_of;  // per configuration: its shard K of --shard K/N (assign_shards)
  // The preset, read once (resolve_configurations): each configuration starts from a copy of it
  // (reading a preset's JSON was 1.4 M instructions, as much as a captured frame's re-costing).
  std::optional<models::Configuration> preset;
  // Each configuration's models as resolve_configurations built them, kept for its run when the sweep has
  // at most k_kept_model_sets configurations (building them again was a tenth of a captured frame's
  // re-costing: bench/README.md "seventeenth session"); empty otherwise, and each run builds its own.
  std::vector<std::unique_ptr<const models::ModelSet>> models;
};

// Model sets kept from resolving to running (Prepared::models), and the heap each takes, rounded up: its
// resolved parameter tree and a model object per kind (measured under mali-g710: a sweep of 4,096
// configurations keeping them peaked 47 MB above one of 4,352 that did not, 11.5 KB a set).
inline constexpr size_t k_kept_model_sets = 4096;
inline constexpr uint64_t k_kept_model_set_bytes = 16 << 10;

// Groups configurations that differ only in cost parameters (tools/commands/sweep_run.cpp).
class Reuse;
class RowBuilder;

// The shard (1..shards) of each configuration: whole functional groups (`functional_group`, per
// configuration), balanced by estimated work (tools/commands/sweep_shards.cpp).
std::vector<unsigned> assign_shards(const std::vector<uint32_t>& functional_group, unsigned shards);
// What sweep-merge knows of the shards from the folders given: each one's "shard_configurations".
struct ShardOwners {
  unsigned shards = 0;                   // N of the folders' "K/N" (0: unsharded folders)
  std::set<unsigned> given;              // the K of every folder given
  std::map<size_t, unsigned> shard_of;   // configuration -> K, from the folders that list theirs
};
// sweep-merge's refusal when parts are missing: how many, the first, and the shard(s) K of N to resubmit.
std::string missing_parts_message(const std::vector<size_t>& missing, size_t count, const ShardOwners& owners);

std::string too_many_configurations();
std::vector<std::string> split(const std::string& s, char sep);
std::string trim(const std::string& s);
std::string join(const std::vector<std::string>& items, const std::string& sep);
bool read_text(const fs::path& path, std::string& text);
std::string hex64(uint64_t v);
void write_atomically(const fs::path& target, const std::string& text);
void remove_stale_temporaries(const fs::path& folder);
std::string part_name(size_t index);
// The part files of a sweep: the configurations of each (in index order), named by its first (part_name).
struct PartGroups {
  std::vector<size_t> first;                        // per configuration: its group's first, SIZE_MAX if none
  std::map<size_t, std::vector<size_t>> members;    // by first configuration
};
// Each functional group's configurations in index order, cut into runs of k_part_group: whatever -j, shards
// (which hold whole functional groups) or resuming, the same files hold the same configurations.
PartGroups part_groups(const std::vector<uint32_t>& functional_group);
std::string grid_value(const ojson& v, const std::string& where);
void check_key(const std::string& key, const std::string& where);
size_t top_level_elements(const std::string& text);
std::vector<std::vector<std::string>> read_grid(const std::string& file);
models::Configuration make_configuration(const models::Configuration& preset, const std::vector<std::string>& assignments);
std::string label(size_t index, const std::vector<std::string>& assignments);
void set_columns(const nlohmann::json& resolved, RowBuilder& row);
std::pair<unsigned, unsigned> parse_shard(const std::string& shard);
std::string csv_quote(const std::string& s);

// ---- rows (tools/commands/sweep_rows.cpp) ---------------------------------------------------------
// A configuration's rows were ordered_json objects of about 300 keys, each built, dumped twice, then
// parsed again from its part for the results: most of a re-costing's time (bench/README.md "The
// captured sweep, re-costed without JSON trees"). Now a row is a list of cells under column names
// interned once per sweep, written as JSON or CSV text directly, byte for byte as nlohmann dumps it.

// A column name: its text as a JSON object key ("name": as dump() writes it) and an index for lookups.
struct RowKey {
  std::string name;
  std::string quoted;
  uint32_t id = 0;
};

// The column names of a sweep's rows. Thread-safe: every worker interns its rows' names; a RowKey
// never moves (a deque) and is immutable once interned.
class RowKeys {
 public:
  const RowKey* intern(const std::string& name);
  size_t size() const;

 private:
  mutable std::mutex m_mutex;
  std::deque<RowKey> m_keys;
  std::unordered_map<std::string_view, const RowKey*> m_index;
};

// A row's cells in their order of first setting, each value a JSON scalar (or whatever a part held).
struct Cell {
  const RowKey* key;
  ojson value;
};
using FlatRow = std::vector<Cell>;

// Builds rows as ordered_json's operator[] and the report's flattening did (tools/doc/sweeps.md "What the
// output folder holds"): a name set twice keeps its first place.
class RowBuilder {
 public:
  // `successors` (optional, kept by a worker across its configurations): per RowKey id + 1, the name set
  // after it last time. Rows set their names in the same order, so a name is found by comparing it with
  // its predecessor's successor, without RowKeys' lock and hash (a sixth of a row's cost).
  explicit RowBuilder(RowKeys& keys, std::vector<const RowKey*>* successors = nullptr)
      : m_keys(keys), m_successors(successors) {}
  void start(const FlatRow& base);  // a new row, a copy of `base`
  void set(const std::string& name, ojson value);
  // The leaves of `value` (null ones left out), named by their paths; `skip`: a top-level key left out.
  void flatten(const nlohmann::json& value, const char* skip = nullptr);
  // The same cells without a JSON tree (tools/commands/sweep_report_cells.cpp): a path from the top,
  // a step down (returns the length to leave() back to), and a leaf's value at the path.
  void begin_path() { m_path.clear(); }
  size_t enter(std::string_view step);
  void leave(size_t length) { m_path.resize(length); }
  void leaf(ojson value);
  FlatRow take();

 private:
  void mark(const RowKey* key, size_t cell);
  void flatten_at(const nlohmann::json& value, const char* skip);
  const RowKey* key_of(const std::string& name);
  RowKeys& m_keys;
  std::vector<const RowKey*>* m_successors;
  const RowKey* m_last = nullptr;  // the name set last
  FlatRow m_row;
  std::vector<uint32_t> m_position;  // per RowKey id: 1 + its cell in m_row, 0 when absent
  std::string m_path;
  size_t m_longest = 0;  // cells of the longest row taken: the next one's reserve
};

// The cells RowBuilder::flatten takes from report_json(stats) (tools/commands/report.cpp): a pass's (its
// attachment records left out), one attachment record's, the run's totals'; built from the figures.
void pass_cells(const PassStats& pass, RowBuilder& row);
void attachment_cells(const AttachmentStats& attachment, RowBuilder& row);
void totals_cells(const RunStats& stats, RowBuilder& row);

void as_read_back(FlatRow& row);
// Whether two values are written as the same JSON text: of one type and equal, a double bit for bit
// (0.0 == -0.0, but they are written "0.0" and "-0.0").
bool written_alike(const ojson& a, const ojson& b);

// An ordered list of columns, and a lookup of one row's cells by column while it is place()d.
struct Columns {
  std::vector<const RowKey*> keys;
  void place(const FlatRow& row) const;
  const Cell* cell(const RowKey* key) const;
  void clear(const FlatRow& row) const;
  std::vector<std::string> names() const;

 private:
  mutable std::vector<const Cell*> m_cell;  // per RowKey id
};

// Appends JSON text to `out` exactly as nlohmann's dump() (no indent) would write the same values.
class JsonWriter {
 public:
  explicit JsonWriter(std::string& out);
  void value(const ojson& v);
  void row(const FlatRow& row);  // the row's own order
  void rows(const std::vector<FlatRow>& rows);

 private:
  std::string& m_out;
  nlohmann::detail::serializer<ojson> m_serializer;
};

Columns column_order(RowKeys& names, const std::vector<FlatRow>& rows, const std::vector<std::string>& fixed,
                     const std::vector<std::string>& set_columns, const std::vector<std::string>& after_set);
std::vector<std::string> set_column_order(const std::vector<FlatRow>& rows);
// `reserve`: the text's expected size (sweep_results.cpp results_reserve), reserved at once: growing a results.json
// of 17 MB by doubling faulted in 64 MB, each page once, a fifth of a 1,000-configuration sweep's time.
std::string csv_text(const Columns& columns, const std::vector<FlatRow>& rows, size_t reserve = 0);
struct ResultTexts {
  std::string csv, json;
};
ResultTexts result_texts(const Columns& columns, const std::vector<FlatRow>& rows, size_t reserve = 0);

// A simulated configuration's rows as they read back from its part.
struct ConfigurationRows {
  std::vector<FlatRow> rows, attachments;
};
// The rows of the parts this run wrote, for write_results (others are read from their parts).
struct KeptRows {
  RowKeys keys;
  std::mutex mutex;
  std::unordered_map<size_t, ConfigurationRows> by_index;  // rows and attachments; the part text dropped
};

// A part's rows in format 3 (tools/commands/sweep_part_rows.cpp, tools/doc/sweeps.md): the column names and
// row shapes in a layout file of the parts folder, parts/layout-FNV1A64.json (named by the hash of its text,
// most parts of a sweep sharing one), each row as the cells it shares with the row before it and its own values.
struct PartLayout {
  std::vector<const RowKey*> columns;
  std::vector<std::vector<uint32_t>> shapes;  // each row's own cells' columns
  bool operator==(const PartLayout& other) const;
};
std::string layout_file_name(const std::string& hash);
// The layout files of one parts folder this run wrote, each once (shared by the workers).
class LayoutFiles {
 public:
  explicit LayoutFiles(fs::path parts) : m_parts(std::move(parts)) {}
  void ensure(const std::string& hash, const std::string& text);

 private:
  std::mutex m_mutex;
  fs::path m_parts;
  std::set<std::string> m_written;
};
// A worker's part text (the buffer reused: fresh buffers for each part faulted in new pages for every
// configuration) and the layout of its last part with its hash.
struct PartWriter {
  LayoutFiles& files;
  std::vector<const RowKey*> successors;  // the worker's RowBuilder's
  std::vector<std::pair<ojson, std::string>> last_values;  // per RowKey id: the last value written and its text
  std::string text;
  PartLayout layout;
  std::string layout_hash;
};
// Appends "layout_fnv1a64", "rows_fnv1a64", "rows" and "attachments" to `writer.text`, writing the layout file if new.
void part_rows_text(const std::vector<FlatRow>& rows, const std::vector<FlatRow>& attachments, PartWriter& writer);
// rows_fnv1a64 of a parsed part: the hash of its "rows" and "attachments" as written.
std::string part_rows_hash(const ojson& part);
// A layout file as read: its columns and shapes, or why it is not a valid layout.
struct ReadLayout {
  std::string text, problem;
  std::vector<std::string> columns;
  std::vector<std::vector<uint32_t>> shapes;
};
// Layout files read, each once, by path.
class LayoutCache {
 public:
  const ReadLayout& get(const fs::path& parts, const std::string& hash);

 private:
  std::map<std::string, ReadLayout> m_layouts;
};
// A parsed part's rows with its layout from `parts` (the folder holding it); the problem naming the field or
// file, or "". `layout_file`: set to the layout's file name.
std::string decode_part_rows(const ojson& part, const fs::path& parts, LayoutCache& layouts, RowKeys& keys,
                             ConfigurationRows& out, std::string* layout_file = nullptr);
// What write_results wrote: its rows, and those of failed runs (with an "error" column).
struct ResultsWritten {
  size_t rows = 0, failed = 0;
};
ResultsWritten write_results(const fs::path& dir, const std::vector<size_t>& indices, const PartGroups& groups,
                             KeptRows* kept = nullptr);
// What differs between a folder's sweep.json and the one given, in the command line's words
// ("tile: 16x16,32x32 in the folder's sweep, 16x16,64x64 in this one (64x64 new, 32x32 gone)").
// `a` and `b` name the two sweeps in the message ("the folder's sweep", "this one"; or two shard folders).
struct SweepNames {
  std::string a, b;
};
std::string sweep_difference(const std::string& folder_text, const std::string& given_text, const SweepNames& names);
std::string fingerprint_text(const ojson& fingerprint,
                             const std::vector<std::vector<std::string>>* configurations = nullptr);
void prepare_folder(const fs::path& dir, const std::string& fingerprint);
std::string changed_input(const ojson& a, const ojson& b);
bool rows_of_configuration(const std::vector<FlatRow>& rows, size_t index);
std::string rows_problem(const ojson& part, const fs::path& parts, const PartExpectation& expect, std::string* layout_file);
std::string part_problem(const ojson& part, const fs::path& parts, const PartExpectation& expect, std::string* layout_file);
// `layout_file`: set to the name of the layout file a valid part refers to.
ojson read_checked_part(const fs::path& path, const PartExpectation& expect, std::string& problem,
                        std::string* layout_file = nullptr);
// A part file's lines (each ending in a newline; `problem` set when the text does not end in one).
std::vector<std::string_view> part_lines(const std::string& text, std::string& problem);
// A group's part file checked line by line against `expects` (one per configuration, in index order): its
// parsed parts, or none with `problem` set ("missing", or what is wrong and on which line). `layout_files`:
// the layout file names the lines refer to.
std::vector<ojson> read_checked_group(const fs::path& path, const std::vector<PartExpectation>& expects, std::string& problem,
                                      std::set<std::string>* layout_files = nullptr);
// `part.text`: set to the part's text.
ConfigurationRows simulate_configuration(size_t index, const SweepOptions& o, const Prepared& p, Reuse* reuse, RowKeys& keys,
                                         PartWriter& part, size_t& failures);
Prepared prepare(const SweepOptions& o, unsigned shard, unsigned shards);
MemoryTerm configurations_term(const SweepOptions& o, const std::vector<std::vector<std::string>>& configurations);
void find_pending(const fs::path& dir, const Prepared& p, const PartGroups& groups, std::pair<unsigned, unsigned> shard,
                  bool quiet, std::vector<size_t>& mine, std::vector<size_t>& pending);
void check_sweep_memory(const SweepOptions& o, const Prepared& p);
struct ShardOwners;
// A folder's sweep.json with its shard set to 1/1 and its own list of configurations left out, so the
// shards of one sweep compare equal; `owners` (optional) learns the folder's K/N and its list.
ojson read_fingerprint(const fs::path& dir, const std::string& given, ShardOwners* owners = nullptr);
size_t index_of_part_name(const std::string& name);
// What sweep-merge gathers from the shard folders: each part's text and file, the inputs of the first
// part read (every other must have the same), and the layout files the parts refer to, by name.
struct MergedParts {
  std::map<size_t, std::pair<std::string, std::string>> parts;  // first configuration -> (text, file)
  PartGroups groups;                                            // first sized to the sweep's configurations
  ojson reference;
  std::string reference_file;
  LayoutCache cache;
  std::map<std::string, std::string> layouts;  // file name -> text
};
void collect_parts(const fs::path& dir, const ojson& first, MergedParts& merged);

}  // namespace tbdr::sweep
