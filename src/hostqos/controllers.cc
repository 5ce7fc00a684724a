#include "hostqos/controllers.h"

#include <algorithm>
#include <string>

namespace colo::hostqos {
namespace {

constexpr ControllerKind kAllKinds[] = {
    ControllerKind::kNone, ControllerKind::kHeracles, ControllerKind::kParties,
    ControllerKind::kCaladan, ControllerKind::kColo};

// The high-priority GPU job that slowed most, or -1 if there is none.
int Victim(const HostSpec& spec, const HostSnapshot& snap) {
  int victim = -1;
  for (size_t j = 0; j < spec.gpu_jobs.size(); ++j) {
    if (!spec.gpu_jobs[j].high_priority) continue;
    if (victim < 0 || snap.slowdown[j] > snap.slowdown[victim]) {
      victim = static_cast<int>(j);
    }
  }
  return victim;
}

class NoController final : public HostController {
 public:
  ControllerKind kind() const override { return ControllerKind::kNone; }
  void Step(const HostSnapshot&, HostKnobs*) override {}
};

// Heracles: one knob, best-effort cores, moved for all of them at once.
class HeraclesController final : public HostController {
 public:
  HeraclesController(const HostSpec& spec, const ControllerOptions& o)
      : spec_(spec), options_(o) {}
  ControllerKind kind() const override { return ControllerKind::kHeracles; }
  void Step(const HostSnapshot& snap, HostKnobs* knobs) override {
    if (++tick_ % options_.heracles_every != 0) return;
    const int victim = Victim(spec_, snap);
    if (victim < 0) return;
    const double slowdown = snap.slowdown[victim];
    int delta = 0;
    if (slowdown > options_.target * options_.throttle_at) {
      delta = -1;
    } else if (slowdown < options_.release_below) {
      delta = +1;
    }
    for (size_t i = 0; i < spec_.aggressors.size(); ++i) {
      AggressorKnobs& k = knobs->aggressors[i];
      // Heracles leaves a best-effort job at least one core rather than
      // suspending it.
      const int cores =
          std::clamp(k.cores + delta, 1, spec_.aggressors[i].cores);
      if (cores != k.cores) {
        k.cores = cores;
        ++actions_;
      }
    }
  }

 private:
  const HostSpec& spec_;
  ControllerOptions options_;
  int64_t tick_ = 0;
};

// PARTIES: upsize the struggling job by one core taken from best effort;
// judge each action after revert_after intervals.
class PartiesController final : public HostController {
 public:
  PartiesController(const HostSpec& spec, const ControllerOptions& o)
      : spec_(spec), options_(o) {}
  ControllerKind kind() const override { return ControllerKind::kParties; }
  void Step(const HostSnapshot& snap, HostKnobs* knobs) override {
    const int victim = Victim(spec_, snap);
    if (victim < 0) return;
    const double slowdown = snap.slowdown[victim];
    if (pending_) {
      if (++waited_ < options_.revert_after) return;
      pending_ = false;
      // An action that took off less than a hundredth of the slowdown did
      // not help: give the core back and skip that donor next time.
      if (slowdown > before_ - 0.01) {
        knobs->aggressors[donor_].cores += 1;
        knobs->loader_cores[victim] -= 1;
        useless_.push_back(donor_);
        ++actions_;
        return;
      }
    }
    if (slowdown > options_.target * options_.throttle_at) {
      int donor = -1;
      for (size_t i = 0; i < spec_.aggressors.size(); ++i) {
        if (!snap.running[i] || knobs->aggressors[i].cores <= 1) continue;
        if (std::find(useless_.begin(), useless_.end(), i) != useless_.end())
          continue;
        if (donor < 0 ||
            knobs->aggressors[i].cores > knobs->aggressors[donor].cores) {
          donor = static_cast<int>(i);
        }
      }
      if (donor < 0) {
        useless_.clear();  // every donor tried: start over.
        return;
      }
      knobs->aggressors[donor].cores -= 1;
      knobs->loader_cores[victim] += 1;
      donor_ = donor;
      before_ = slowdown;
      pending_ = true;
      waited_ = 0;
      ++actions_;
      calm_ = 0;
    } else if (slowdown < options_.release_below) {
      if (++calm_ < options_.revert_after) return;
      calm_ = 0;
      // Downsize: the loader's extra core goes back to best effort.
      if (knobs->loader_cores[victim] <= spec_.gpu_jobs[victim].cores) return;
      for (size_t i = 0; i < spec_.aggressors.size(); ++i) {
        if (knobs->aggressors[i].cores < spec_.aggressors[i].cores) {
          knobs->aggressors[i].cores += 1;
          knobs->loader_cores[victim] -= 1;
          ++actions_;
          return;
        }
      }
    } else {
      calm_ = 0;
    }
  }

 private:
  const HostSpec& spec_;
  ControllerOptions options_;
  bool pending_ = false;
  int waited_ = 0;
  int donor_ = -1;
  double before_ = 0;
  int calm_ = 0;
  std::vector<size_t> useless_;
};

// Caladan: host-wide bandwidth thresholds, cores of the heaviest job.
class CaladanController final : public HostController {
 public:
  CaladanController(const HostSpec& spec, const ControllerOptions& o)
      : spec_(spec), options_(o) {}
  ControllerKind kind() const override { return ControllerKind::kCaladan; }
  void Step(const HostSnapshot& snap, HostKnobs* knobs) override {
    double delivered = 0, peak = 0;
    for (size_t d = 0; d < spec_.domains.size(); ++d) {
      delivered += snap.domains[d].delivered_gbps;
      peak += spec_.domains[d].peak_gbps;
    }
    const double u = delivered / peak;
    if (u > options_.bw_high) {
      int heaviest = -1;
      for (size_t i = 0; i < spec_.aggressors.size(); ++i) {
        if (!snap.running[i] || knobs->aggressors[i].cores <= 1) continue;
        if (heaviest < 0 ||
            snap.aggressor_gbps[i] > snap.aggressor_gbps[heaviest]) {
          heaviest = static_cast<int>(i);
        }
      }
      if (heaviest >= 0) {
        knobs->aggressors[heaviest].cores -= 1;
        ++actions_;
      }
    } else if (u < options_.bw_low) {
      for (size_t i = 0; i < spec_.aggressors.size(); ++i) {
        if (knobs->aggressors[i].cores < spec_.aggressors[i].cores) {
          knobs->aggressors[i].cores += 1;
          ++actions_;
          return;
        }
      }
    }
  }

 private:
  const HostSpec& spec_;
  ControllerOptions options_;
};

class ColoController final : public HostController {
 public:
  ColoController(const HostSpec& spec, const ControllerOptions& o)
      : spec_(spec),
        options_(o),
        level_(spec.aggressors.size(), 0),
        hold_(o.release_hold) {}
  ControllerKind kind() const override { return ControllerKind::kColo; }
  void Step(const HostSnapshot& snap, HostKnobs* knobs) override {
    ++now_;
    // An aggressor that stopped leaves its knobs open behind it.
    for (size_t i = 0; i < spec_.aggressors.size(); ++i) {
      if (!snap.running[i] && level_[i] > 0) Set(i, 0, knobs);
    }
    const int victim = Victim(spec_, snap);
    if (victim < 0) return;
    const double slowdown = snap.slowdown[victim];
    if (slowdown > options_.target * options_.throttle_at) {
      calm_ = 0;
      int pick = -1;
      for (size_t i = 0; i < spec_.aggressors.size(); ++i) {
        if (!snap.running[i] || level_[i] >= kLadderTop ||
            spec_.aggressors[i].domain != spec_.gpu_jobs[victim].domain) {
          continue;
        }
        if (pick < 0 || level_[i] < level_[pick] ||
            (level_[i] == level_[pick] &&
             snap.aggressor_gbps[i] > snap.aggressor_gbps[pick])) {
          pick = static_cast<int>(i);
        }
      }
      if (pick < 0) return;
      // A throttle soon after a release: that release was one too many.
      if (last_release_ >= 0 && now_ - last_release_ <= hold_ + 1) {
        hold_ = std::min(64, hold_ * 2);
      }
      int next = NextLadderLevel(level_[pick], +1, options_);
      // Bandwidth counters that show the victim's domain well under the
      // knee say the slowdown is not bandwidth: go to the CPU quota steps.
      const int d = spec_.DomainIndex(spec_.gpu_jobs[victim].domain);
      if (options_.bandwidth_counters && d >= 0 &&
          d < static_cast<int>(snap.domains.size()) &&
          snap.domains[d].utilization < 0.95 * spec_.saturation.knee) {
        next = std::max(next, kFirstQuotaLevel);
      }
      Set(pick, next, knobs);
    } else if (slowdown < options_.release_below) {
      if (++calm_ < hold_) return;
      calm_ = 0;
      int pick = -1;
      for (size_t i = 0; i < spec_.aggressors.size(); ++i) {
        if (level_[i] > 0 && (pick < 0 || level_[i] > level_[pick])) {
          pick = static_cast<int>(i);
        }
      }
      if (pick < 0) return;
      Set(pick, NextLadderLevel(level_[pick], -1, options_), knobs);
      last_release_ = now_;
    } else {
      calm_ = 0;
    }
  }

 private:
  void Set(size_t i, int level, HostKnobs* knobs) {
    level_[i] = level;
    knobs->aggressors[i] = LadderKnobs(spec_.aggressors[i], level);
    ++actions_;
  }

  const HostSpec& spec_;
  ControllerOptions options_;
  std::vector<int> level_;
  int hold_;
  int calm_ = 0;
  int64_t now_ = 0;
  int64_t last_release_ = -1;
};

}  // namespace

std::string_view ControllerName(ControllerKind kind) {
  switch (kind) {
    case ControllerKind::kNone:
      return "none";
    case ControllerKind::kHeracles:
      return "heracles";
    case ControllerKind::kParties:
      return "parties";
    case ControllerKind::kCaladan:
      return "caladan";
    case ControllerKind::kColo:
      return "colo";
  }
  return "?";
}

Result<ControllerKind> ParseControllerKind(std::string_view name) {
  for (ControllerKind k : kAllKinds) {
    if (ControllerName(k) == name) return k;
  }
  return InvalidArgumentError("unknown host controller '" + std::string(name) +
                              "' (expected none, heracles, parties, caladan "
                              "or colo)");
}

Result<std::vector<ControllerKind>> ParseControllerList(std::string_view text) {
  if (text == "all") {
    return std::vector<ControllerKind>(std::begin(kAllKinds),
                                       std::end(kAllKinds));
  }
  std::vector<ControllerKind> kinds;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view one = text.substr(
        start, comma == std::string_view::npos ? comma : comma - start);
    COLO_ASSIGN_OR_RETURN(ControllerKind k, ParseControllerKind(one));
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) {
      kinds.push_back(k);
    }
    if (comma == std::string_view::npos) return kinds;
    start = comma + 1;
  }
}

Status ControllerOptions::Validate() const {
  if (!(target > 0 && target < 10)) {
    return InvalidArgumentError("target slowdown must be in (0, 10)");
  }
  if (!(throttle_at > 0 && throttle_at <= 1)) {
    return InvalidArgumentError("throttle_at must be in (0, 1]");
  }
  if (!(release_below >= 0 && release_below < target * throttle_at)) {
    return InvalidArgumentError(
        "release_below must be >= 0 and below the throttle threshold "
        "(target * throttle_at): the hysteresis band would be empty");
  }
  if (release_hold < 1 || revert_after < 1 || heracles_every < 1) {
    return InvalidArgumentError(
        "release_hold, revert_after and heracles_every must be >= 1");
  }
  if (!(bw_low >= 0 && bw_low < bw_high && bw_high <= 1)) {
    return InvalidArgumentError("expected 0 <= bw_low < bw_high <= 1");
  }
  return OkStatus();
}

int NextLadderLevel(int level, int dir, const ControllerOptions& options) {
  const auto available = [&](int l) {
    if (l == 1) return options.prefetch_knob;
    if (l >= 2 && l <= 10) return options.mba_knob;
    return true;
  };
  do {
    level += dir;
  } while (level > 0 && level < kLadderTop && !available(level));
  return std::clamp(level, 0, kLadderTop);
}

AggressorKnobs LadderKnobs(const Aggressor& a, int level) {
  AggressorKnobs k{.cores = a.cores};
  level = std::clamp(level, 0, kLadderTop);
  if (level >= 1) k.prefetch_off = true;
  // Levels 2..10: MBA 90% .. 10%.
  if (level >= 2) k.mba_percent = 100 - 10 * std::min(level - 1, 9);
  // Levels 11..19: CPU quota 90% .. 10% (with MBA at 10%).
  if (level >= 11) k.quota = 1.0 - 0.1 * (level - 10);
  return k;
}

std::unique_ptr<HostController> MakeController(
    ControllerKind kind, const HostSpec& spec,
    const ControllerOptions& options) {
  switch (kind) {
    case ControllerKind::kNone:
      return std::make_unique<NoController>();
    case ControllerKind::kHeracles:
      return std::make_unique<HeraclesController>(spec, options);
    case ControllerKind::kParties:
      return std::make_unique<PartiesController>(spec, options);
    case ControllerKind::kCaladan:
      return std::make_unique<CaladanController>(spec, options);
    case ControllerKind::kColo:
      return std::make_unique<ColoController>(spec, options);
  }
  return nullptr;
}

}  // namespace colo::hostqos
