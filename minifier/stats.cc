#include "minifier/stats.h"

#include "absl/strings/str_format.h"

namespace rk::minifier {
namespace {

Json ScoreJson(const Score& score) {
  Json json = Json::MakeObject();
  json.Set("compute_nodes", score.terms[0]);
  json.Set("input_elements", score.terms[1]);
  json.Set("total_nodes", score.terms[2]);
  json.Set("outputs", score.terms[3]);
  json.Set("dtype_distance", score.terms[4]);
  json.Set("input_rank", score.terms[5]);
  return json;
}

}  // namespace

ReductionStats& MinifyStats::For(const std::string& name) {
  for (ReductionStats& r : reductions) {
    if (r.name == name) return r;
  }
  reductions.push_back(ReductionStats{name});
  return reductions.back();
}

Json MinifyStats::ToJson() const {
  Json json = Json::MakeObject();
  json.Set("oracle_calls", oracle_calls);
  json.Set("oracle_calls_used", oracle_calls_used);
  json.Set("cache_hits", cache_hits);
  json.Set("rejected_drifts", rejected_drifts);
  json.Set("invalid_candidates", invalid_candidates);
  json.Set("not_smaller", not_smaller);
  json.Set("cannot_match", cannot_match);
  json.Set("accepted_steps", accepted_steps);
  json.Set("accepted_sequence", accepted_sequence);
  json.Set("values_recorded", values.recorded);
  json.Set("values_stored", values.stored);
  json.Set("value_loads", values.loads);
  json.Set("value_cache_hits", values.hits);
  json.Set("value_cache_peak", values.peak_resident);
  json.Set("seconds", seconds);
  json.Set("signature", signature);
  json.Set("start", ScoreJson(start_score));
  json.Set("final", ScoreJson(final_score));
  json.Set("one_minimal", one_minimal);
  json.Set("reproduced", absl::StrFormat("%d/%d", reproduce_runs, reproduce_attempts));
  json.Set("flaky", flaky);
  json.Set("interrupted", interrupted);
  json.Set("timed_out", timed_out);
  Json per = Json::MakeArray();
  for (const ReductionStats& r : reductions) {
    Json item = Json::MakeObject();
    item.Set("name", r.name);
    item.Set("runs", r.runs);
    item.Set("candidates", r.candidates);
    item.Set("accepted", r.accepted);
    item.Set("oracle_calls", r.oracle_calls);
    item.Set("seconds", r.seconds);
    per.push_back(std::move(item));
  }
  json.Set("reductions", std::move(per));
  Json history_json = Json::MakeArray();
  for (const ProgressPoint& p : history) {
    Json item = Json::MakeObject();
    item.Set("calls", p.oracle_calls);
    item.Set("nodes", p.nodes);
    item.Set("seconds", p.seconds);
    history_json.push_back(std::move(item));
  }
  json.Set("history", std::move(history_json));
  return json;
}

std::string MinifyStats::Summary() const {
  return absl::StrFormat("%d -> %d nodes, %d oracle calls (%d cached), %.1f s%s",
                         start_score.compute_nodes(), final_score.compute_nodes(), oracle_calls,
                         cache_hits, seconds, flaky ? " [FLAKY]" : "");
}

}  // namespace rk::minifier
