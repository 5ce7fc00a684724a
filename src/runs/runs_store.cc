#include "runs/runs_store.h"

#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <system_error>
#include <thread>
#include <utility>

#include "runs/run_context.h"
#include "runs/run_latencies.h"
#include "runs/runs_schema.h"

namespace colo::runs {
namespace {

// A prepared statement, finalized on every path out.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }
  void Bind(int i, const std::string& text) {
    sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()),
                      SQLITE_TRANSIENT);
  }
  void Bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void BindBlob(int i, const std::string& bytes) {
    sqlite3_bind_blob(stmt_, i, bytes.data(), static_cast<int>(bytes.size()),
                      SQLITE_TRANSIENT);
  }
  void Bind(int i, const std::optional<int64_t>& v) {
    if (v) {
      Bind(i, *v);
    } else {
      sqlite3_bind_null(stmt_, i);
    }
  }
  // Ready to run again, with new bindings.
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return sqlite3_step(stmt_); }
  std::string Text(int col) const {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t == nullptr ? std::string()
                        : std::string(reinterpret_cast<const char*>(t),
                                      sqlite3_column_bytes(stmt_, col));
  }
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  Result<std::vector<int64_t>> Latencies(int col) const {
    const void* blob = sqlite3_column_blob(stmt_, col);
    return DecodeLatencies(
        blob, static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
  }
  std::optional<int64_t> OptionalInt(int col) const {
    if (sqlite3_column_type(stmt_, col) == SQLITE_NULL) return std::nullopt;
    return Int(col);
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
};

// The columns List(), Repeats() and Get() read, in this order.
constexpr char kRunColumns[] =
    "r.id, r.batch, r.kind, r.created_unix_ns, r.colo_version, r.input, "
    "r.input_hash, r.options_json, r.seed, r.policy, r.gpu, r.host, r.cpu, "
    "b.command";

RunRecord ReadRun(const Statement& s) {
  RunRecord r;
  r.id = s.Int(0);
  r.batch = s.Int(1);
  r.kind = s.Text(2);
  r.created_unix_ns = s.Int(3);
  r.colo_version = s.Text(4);
  r.input = s.Text(5);
  r.input_hash = s.Text(6);
  r.options_json = s.Text(7);
  r.seed = s.OptionalInt(8);
  r.policy = s.Text(9);
  r.gpu = s.Text(10);
  r.host = s.Text(11);
  r.cpu = s.Text(12);
  r.command = s.Text(13);
  return r;
}

// Runs `sql` (statements without results). SQLITE_OK or the error code.
int Exec(sqlite3* db, const char* sql) {
  return sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
}

}  // namespace

Status RunsStore::Error(const std::string& doing) const {
  const int code = sqlite3_errcode(db_);
  const std::string what = path_ + ": " + doing + ": " + sqlite3_errmsg(db_);
  switch (code & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return InvalidArgumentError(
          what +
          " (the file is damaged or not a colo runs database; move it "
          "away, or pass another --runs-db)");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return UnavailableError(what + " (another process held it too long)");
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_IOERR:
    case SQLITE_FULL:
      return UnavailableError(what);
    default:
      return InternalError(what);
  }
}

Result<std::unique_ptr<RunsStore>> RunsStore::Open(
    const std::string& path, const RunsStoreOptions& options) {
  std::error_code ec;
  if (!options.create && !std::filesystem::exists(path, ec)) {
    return NotFoundError("no runs database at " + path +
                         " (colo sim, plan and predict eval record their runs "
                         "there; --runs-db names another)");
  }
  if (std::filesystem::is_directory(path, ec)) {
    return InvalidArgumentError(path +
                                ": is a directory, not a runs database file");
  }
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
                    (options.create ? SQLITE_OPEN_CREATE : 0);
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  std::unique_ptr<RunsStore> store(new RunsStore(db, path));
  if (rc != SQLITE_OK) {
    if (db == nullptr) return ResourceExhaustedError(path + ": out of memory");
    return store->Error("cannot open");
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, static_cast<int>(options.busy_timeout.count()));

  // The first read is where a file of garbage shows itself (SQLITE_NOTADB).
  int version = 0;
  {
    Statement s(db, "PRAGMA user_version");
    if (!s.ok() || s.Step() != SQLITE_ROW)
      return store->Error("cannot read the schema version");
    version = static_cast<int>(s.Int(0));
  }
  if (version > kRunsSchemaVersion) {
    return FailedPreconditionError(
        path + ": runs database schema version " + std::to_string(version) +
        " is newer than this colo " + ColoVersion() + " reads (version " +
        std::to_string(kRunsSchemaVersion) +
        "); use a newer colo, or pass another --runs-db");
  }
  // WAL lets readers and one writer work at once; switching to it needs the
  // file briefly to itself, which the busy handler does not always wait
  // for, so a short retry loop covers a concurrent first open.
  for (int attempt = 0;; ++attempt) {
    const int wal = Exec(db, "PRAGMA journal_mode=WAL");
    if (wal == SQLITE_OK) break;
    if ((wal & 0xff) != SQLITE_BUSY || attempt == 200)
      return store->Error("cannot switch to WAL");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (Exec(db, "PRAGMA synchronous=NORMAL") != SQLITE_OK)
    return store->Error("cannot set synchronous");

  // Migrate inside one write transaction per step, re-reading the version
  // there: two processes opening an old file at once migrate it once.
  while (version < kRunsSchemaVersion) {
    if (Exec(db, "BEGIN IMMEDIATE") != SQLITE_OK)
      return store->Error("cannot start the schema migration");
    {
      Statement s(db, "PRAGMA user_version");
      if (!s.ok() || s.Step() != SQLITE_ROW) {
        Exec(db, "ROLLBACK");
        return store->Error("cannot read the schema version");
      }
      version = static_cast<int>(s.Int(0));
    }
    if (version == 0) {
      // A version-0 file is new only if it is empty: refuse to add tables
      // to someone else's SQLite database.
      Statement s(db, "SELECT count(*) FROM sqlite_master");
      if (!s.ok() || s.Step() != SQLITE_ROW) {
        Exec(db, "ROLLBACK");
        return store->Error("cannot read the tables");
      }
      if (s.Int(0) > 0) {
        Exec(db, "ROLLBACK");
        return InvalidArgumentError(
            path +
            ": an SQLite database, but not a colo runs database (it has "
            "tables and no colo schema version); pass another --runs-db");
      }
    }
    if (version >= kRunsSchemaVersion) {
      Exec(db, "ROLLBACK");
      break;
    }
    const std::string step =
        std::string(kRunsMigrations[version]) +
        "PRAGMA user_version = " + std::to_string(version + 1) + ";";
    if (Exec(db, step.c_str()) != SQLITE_OK) {
      Status s = store->Error("cannot migrate the schema from version " +
                              std::to_string(version));
      Exec(db, "ROLLBACK");
      return s;
    }
    if (Exec(db, "COMMIT") != SQLITE_OK) {
      Status s = store->Error("cannot commit the schema migration");
      Exec(db, "ROLLBACK");
      return s;
    }
    ++version;
  }
  return store;
}

RunsStore::~RunsStore() { sqlite3_close_v2(db_); }

Result<std::vector<int64_t>> RunsStore::Record(std::vector<RunRecord>& runs,
                                               const std::string& printed) {
  std::vector<int64_t> ids;
  if (runs.empty()) return ids;
  // IMMEDIATE takes the write lock at once, so a writer waits (busy
  // timeout) at the start rather than failing halfway.
  if (Exec(db_, "BEGIN IMMEDIATE") != SQLITE_OK)
    return Error("cannot start recording");
  auto fail = [&](const std::string& doing) {
    Status s = Error(doing);
    Exec(db_, "ROLLBACK");
    return s;
  };
  Statement batch(db_,
                  "INSERT INTO batches(created_unix_ns, command, printed) "
                  "VALUES (?, ?, ?)");
  if (!batch.ok()) return fail("cannot prepare");
  batch.Bind(1, runs.front().created_unix_ns);
  batch.Bind(2, runs.front().command);
  batch.Bind(3, printed);
  if (batch.Step() != SQLITE_DONE) return fail("cannot record the batch");
  const int64_t batch_id = sqlite3_last_insert_rowid(db_);

  // Prepared once, reset per run: the batch of a comparison is one
  // transaction of a few inserts.
  Statement input(db_,
                  "INSERT OR IGNORE INTO inputs(hash, text) VALUES (?, ?)");
  Statement row(db_,
                "INSERT INTO runs(batch, kind, created_unix_ns, colo_version, "
                "input, input_hash, options_json, options_hash, seed, policy, "
                "gpu, host, cpu, result_json) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  Statement latencies(db_,
                      "INSERT INTO latencies(run, job, which, total, cap, ns) "
                      "VALUES (?, ?, ?, ?, ?, ?)");
  if (!input.ok() || !row.ok() || !latencies.ok())
    return fail("cannot prepare");
  for (RunRecord& r : runs) {
    if (!r.input_hash.empty()) {
      input.Reset();
      input.Bind(1, r.input_hash);
      input.Bind(2, r.input_text);
      if (input.Step() != SQLITE_DONE) return fail("cannot record the input");
    }
    row.Reset();
    row.Bind(1, batch_id);
    row.Bind(2, r.kind);
    row.Bind(3, r.created_unix_ns);
    row.Bind(4, r.colo_version);
    row.Bind(5, r.input);
    row.Bind(6, r.input_hash);
    row.Bind(7, r.options_json);
    row.Bind(8, ContentHash(r.options_json));
    row.Bind(9, r.seed);
    row.Bind(10, r.policy);
    row.Bind(11, r.gpu);
    row.Bind(12, r.host);
    row.Bind(13, r.cpu);
    row.Bind(14, r.result_json);
    if (row.Step() != SQLITE_DONE) return fail("cannot record a run");
    r.id = sqlite3_last_insert_rowid(db_);
    r.batch = batch_id;
    for (const JobLatencies& l : r.latencies) {
      latencies.Reset();
      latencies.Bind(1, r.id);
      latencies.Bind(2, l.job);
      latencies.Bind(3, l.run);
      latencies.Bind(4, l.total);
      latencies.Bind(5, l.cap);
      latencies.BindBlob(6, EncodeLatencies(l.ns));
      if (latencies.Step() != SQLITE_DONE)
        return fail("cannot record the latencies of job " + l.job);
    }
    ids.push_back(r.id);
  }
  if (Exec(db_, "COMMIT") != SQLITE_OK) return fail("cannot commit the runs");
  return ids;
}

Result<RunRecord> RunsStore::Get(int64_t id) {
  const std::string sql = std::string("SELECT ") + kRunColumns +
                          ", r.result_json, b.printed, "
                          "coalesce(i.text, '') FROM runs r "
                          "JOIN batches b ON b.id = r.batch "
                          "LEFT JOIN inputs i ON i.hash = r.input_hash "
                          "WHERE r.id = ?";
  Statement s(db_, sql.c_str());
  if (!s.ok()) return Error("cannot read run " + std::to_string(id));
  s.Bind(1, id);
  const int rc = s.Step();
  if (rc == SQLITE_DONE) {
    COLO_ASSIGN_OR_RETURN(int64_t count, Count());
    return NotFoundError("no run " + std::to_string(id) + " in " + path_ +
                         " (it holds " + std::to_string(count) +
                         " runs; `colo runs list` shows their ids)");
  }
  if (rc != SQLITE_ROW) return Error("cannot read run " + std::to_string(id));
  RunRecord r = ReadRun(s);
  r.result_json = s.Text(14);
  r.printed = s.Text(15);
  r.input_text = s.Text(16);
  Statement l(db_,
              "SELECT job, which, total, cap, ns FROM latencies WHERE run = ? "
              "ORDER BY rowid");
  if (!l.ok())
    return Error("cannot read the latencies of run " + std::to_string(id));
  l.Bind(1, id);
  int lrc;
  while ((lrc = l.Step()) == SQLITE_ROW) {
    JobLatencies job;
    job.job = l.Text(0);
    job.run = l.Text(1);
    job.total = l.Int(2);
    job.cap = l.Int(3);
    Result<std::vector<int64_t>> ns = l.Latencies(4);
    if (!ns.ok()) {
      return InvalidArgumentError(
          path_ + ": run " + std::to_string(id) + ", job " + job.job + ": " +
          ns.status().message() + " (the file is damaged)");
    }
    job.ns = std::move(*ns);
    r.latencies.push_back(std::move(job));
  }
  if (lrc != SQLITE_DONE)
    return Error("cannot read the latencies of run " + std::to_string(id));
  return r;
}

Result<std::vector<RunRecord>> RunsStore::List(const RunFilter& f) {
  std::string sql = std::string("SELECT ") + kRunColumns +
                    " FROM runs r JOIN batches b ON b.id = r.batch WHERE 1";
  // Placeholders in the order the fields are bound below.
  if (!f.kind.empty()) sql += " AND r.kind = ?1";
  if (!f.input.empty()) sql += " AND instr(r.input, ?2) > 0";
  if (!f.input_hash.empty())
    sql += " AND substr(r.input_hash, 1, length(?3)) = ?3";
  if (!f.policy.empty()) sql += " AND r.policy = ?4";
  if (!f.gpu.empty()) sql += " AND r.gpu = ?5";
  if (!f.host.empty()) sql += " AND r.host = ?6";
  if (f.seed) sql += " AND r.seed = ?7";
  if (f.batch) sql += " AND r.batch = ?8";
  sql += " ORDER BY r.id DESC";
  if (f.limit > 0) sql += " LIMIT ?9";
  Statement s(db_, sql.c_str());
  if (!s.ok()) return Error("cannot list runs");
  if (!f.kind.empty()) s.Bind(1, f.kind);
  if (!f.input.empty()) s.Bind(2, f.input);
  if (!f.input_hash.empty()) s.Bind(3, f.input_hash);
  if (!f.policy.empty()) s.Bind(4, f.policy);
  if (!f.gpu.empty()) s.Bind(5, f.gpu);
  if (!f.host.empty()) s.Bind(6, f.host);
  if (f.seed) s.Bind(7, *f.seed);
  if (f.batch) s.Bind(8, *f.batch);
  if (f.limit > 0) s.Bind(9, f.limit);
  std::vector<RunRecord> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) out.push_back(ReadRun(s));
  if (rc != SQLITE_DONE) return Error("cannot list runs");
  return out;
}

Result<std::vector<RunRecord>> RunsStore::Repeats(const RunRecord& run) {
  const std::string sql = std::string("SELECT ") + kRunColumns +
                          ", r.result_json FROM runs r "
                          "JOIN batches b ON b.id = r.batch "
                          "WHERE r.kind = ? AND r.input_hash = ? AND "
                          "r.options_hash = ? ORDER BY r.id";
  Statement s(db_, sql.c_str());
  if (!s.ok()) return Error("cannot find repeats");
  s.Bind(1, run.kind);
  s.Bind(2, run.input_hash);
  s.Bind(3, ContentHash(run.options_json));
  std::vector<RunRecord> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    out.push_back(ReadRun(s));
    out.back().result_json = s.Text(14);
  }
  if (rc != SQLITE_DONE) return Error("cannot find repeats");
  return out;
}

Result<int64_t> RunsStore::Count() {
  Statement s(db_, "SELECT count(*) FROM runs");
  if (!s.ok() || s.Step() != SQLITE_ROW) return Error("cannot count runs");
  return s.Int(0);
}

}  // namespace colo::runs
