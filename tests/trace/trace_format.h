// Checks a parsed trace against the Chrome trace-event format (Trace Event
// Format, Google, 2016; the JSON object form that Perfetto UI and
// chrome://tracing open). Test-only.
//
// Rules checked, per event: an object with "name" (string) and "ph" (one of
// the phases colo may write: X B E i I C M); "pid" and "tid" integers; "ts"
// a number >= 0 (microseconds); "cat" a string and "args" an object where
// present. Per phase: X has "dur" >= 0; i / I has scope "s" in t, p, g; C
// has only numeric args; M is process_name / thread_name (args.name a
// string) or process_sort_index / thread_sort_index (args.sort_index an
// integer); B and E balance per thread, an E closing the last open B at a
// time not before it. Across events: every process with events has a
// process_name, every thread with X, B or thread-scoped i events a
// thread_name. The root has a "traceEvents" array and, if given, a
// displayTimeUnit of "ms" or "ns".
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace colo::test {

// Every violation found, each a sentence naming the event's index; empty
// when the trace follows the rules above.
inline std::vector<std::string> TraceFormatProblems(
    const nlohmann::json& root) {
  std::vector<std::string> problems;
  if (!root.is_object() || !root.contains("traceEvents") ||
      !root["traceEvents"].is_array()) {
    problems.push_back("the root is not an object with a traceEvents array");
    return problems;
  }
  if (root.contains("displayTimeUnit") && root["displayTimeUnit"] != "ms" &&
      root["displayTimeUnit"] != "ns") {
    problems.push_back("displayTimeUnit is neither ms nor ns");
  }
  const std::set<std::string> phases = {"X", "B", "E", "i", "I", "C", "M"};
  std::set<long long> named_processes, processes;
  std::set<std::pair<long long, long long>> named_threads, threads;
  std::map<std::pair<long long, long long>,
           std::vector<std::pair<std::string, double>>>
      open;  // B events not yet ended, per thread.
  const nlohmann::json& events = root["traceEvents"];
  for (size_t i = 0; i < events.size(); ++i) {
    const nlohmann::json& e = events[i];
    const std::string at = "event " + std::to_string(i) + ": ";
    if (!e.is_object()) {
      problems.push_back(at + "not an object");
      continue;
    }
    if (!e.contains("name") || !e["name"].is_string())
      problems.push_back(at + "no string name");
    if (!e.contains("ph") || !e["ph"].is_string() ||
        !phases.count(e["ph"].get<std::string>())) {
      problems.push_back(at + "no known ph");
      continue;
    }
    const std::string ph = e["ph"];
    if (!e.contains("pid") || !e["pid"].is_number_integer() ||
        !e.contains("tid") || !e["tid"].is_number_integer()) {
      problems.push_back(at + "pid and tid must be integers");
      continue;
    }
    const long long pid = e["pid"], tid = e["tid"];
    if (e.contains("cat") && !e["cat"].is_string())
      problems.push_back(at + "cat is not a string");
    if (e.contains("args") && !e["args"].is_object())
      problems.push_back(at + "args is not an object");
    if (ph != "M") {
      if (!e.contains("ts") || !e["ts"].is_number() || e["ts"] < 0) {
        problems.push_back(at + "ts must be a number >= 0");
        continue;
      }
      processes.insert(pid);
    }
    const double ts = ph == "M" ? 0.0 : e["ts"].get<double>();
    if (ph == "X") {
      if (!e.contains("dur") || !e["dur"].is_number() || e["dur"] < 0)
        problems.push_back(at + "X without a dur >= 0");
      threads.insert({pid, tid});
    } else if (ph == "i" || ph == "I") {
      const std::string s = e.value("s", "t");
      if (s != "t" && s != "p" && s != "g")
        problems.push_back(at + "instant scope not t, p or g");
      if (s == "t") threads.insert({pid, tid});
    } else if (ph == "C") {
      if (!e.contains("args") || !e["args"].is_object() || e["args"].empty()) {
        problems.push_back(at + "counter without values");
      } else {
        for (const auto& [key, value] : e["args"].items())
          if (!value.is_number())
            problems.push_back(at + "counter value " + key + " not a number");
      }
    } else if (ph == "B") {
      open[{pid, tid}].push_back({e["name"].get<std::string>(), ts});
      threads.insert({pid, tid});
    } else if (ph == "E") {
      auto& stack = open[{pid, tid}];
      if (stack.empty()) {
        problems.push_back(at + "E without an open B");
      } else {
        if (stack.back().second > ts) problems.push_back(at + "E before its B");
        stack.pop_back();
      }
    } else if (ph == "M") {
      const std::string name = e.value("name", "");
      const nlohmann::json args = e.value("args", nlohmann::json::object());
      if (name == "process_name" || name == "thread_name") {
        if (!args.contains("name") || !args["name"].is_string())
          problems.push_back(at + name + " without a string args.name");
        if (name == "process_name") named_processes.insert(pid);
        if (name == "thread_name") named_threads.insert({pid, tid});
      } else if (name == "process_sort_index" || name == "thread_sort_index") {
        if (!args.contains("sort_index") ||
            !args["sort_index"].is_number_integer())
          problems.push_back(at + name + " without an integer sort_index");
      } else {
        problems.push_back(at + "unknown metadata event " + name);
      }
    }
  }
  for (const auto& [thread, stack] : open) {
    if (!stack.empty())
      problems.push_back("a B event on pid " + std::to_string(thread.first) +
                         " tid " + std::to_string(thread.second) +
                         " is never ended");
  }
  for (long long pid : processes)
    if (!named_processes.count(pid))
      problems.push_back("process " + std::to_string(pid) + " has no name");
  for (const auto& t : threads)
    if (!named_threads.count(t))
      problems.push_back("thread " + std::to_string(t.second) + " of pid " +
                         std::to_string(t.first) + " has no name");
  return problems;
}

}  // namespace colo::test
