// sim/sim_engine.h — which algorithms the simulated GPU computes one model
// with (SimGpuOptions::engine, SmPool). Plain values; thread-safe.
//
//  * kFast: the default. Fused waves are committed only up to the next event
//    of another launch (they would be taken back there anyway), so an event
//    costs what happens before the next one, not the head launch's whole
//    remaining grid. docs/simulator.md ("Speed") states what else differs and
//    the tolerance; tests/sim/sim_engine_test.cc checks it against kReference.
//  * kReference: the same model as kFast, computed the plain way (every
//    fused wave committed at every event); kept as the reference the fast
//    engine is checked and timed against (bench/sim_speed_bench.cc).
#pragma once

namespace colo::sim {

enum class SimEngine { kFast, kReference };

inline const char* SimEngineName(SimEngine e) {
  return e == SimEngine::kFast ? "fast" : "reference";
}

}  // namespace colo::sim
