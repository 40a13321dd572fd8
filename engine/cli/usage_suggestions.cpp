#include "cli/usage_suggestions.hpp"

#include <CLI/CLI.hpp>

#include "cli/seed_flags.hpp"
#include "config/did_you_mean.hpp"

namespace medsynth::cli {

namespace {

const CLI::App* subcommand_named(const CLI::App& app, const std::string& name) {
  const auto found = app.get_subcommands([&](const CLI::App* s) { return s->get_name() == name; });
  return found.empty() ? nullptr : found.front();
}

std::vector<std::string> verb_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(s->get_name());
  return names;
}

// Every long flag of `app` and the apps above it, as typed ("--json").
std::vector<std::string> flag_names(const CLI::App* app) {
  std::vector<std::string> names;
  for (; app; app = app->get_parent())
    for (const CLI::Option* o : app->get_options())
      for (const std::string& name : o->get_lnames()) names.push_back("--" + name);
  return names;
}

bool known_flag(const CLI::App* app, const std::string& flag) {
  for (; app; app = app->get_parent())
    if (app->get_option_no_throw(flag)) return true;
  return false;
}

}  // namespace

std::string usage_suggestions(const CLI::App& app, const std::vector<std::string>& args) {
  std::string out;
  const CLI::App* current = &app;
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (arg.rfind("--", 0) == 0) {
      const std::string flag = arg.substr(0, arg.find('='));
      if (known_flag(current, flag)) continue;
      if (const auto seed = seed_flag_replacement(flag))
        out += "unknown flag '" + flag + "'; the seeds' " + flag + " is " + *seed + "\n";
      else if (const auto close = closest_match(flag, flag_names(current)))
        out += "unknown flag '" + flag + "'; did you mean '" + *close + "'?\n";
      continue;
    }
    if (arg.empty() || arg[0] == '-') continue;
    if (const CLI::App* sub = subcommand_named(*current, arg)) {
      current = sub;
      continue;
    }
    // A word where only verbs are taken (the program's first word, or
    // launch's): a mistyped verb. Elsewhere it is a positional (a job file).
    const bool verbs_only = !verb_names(*current).empty() && current->get_options([](const CLI::Option* o) {
                                                                 return o->get_positional();
                                                               }).empty();
    if (!verbs_only) continue;
    // A verb of the program where launch takes its own few (`launch evaluate`).
    if (current->get_parent() && subcommand_named(*current->get_parent(), arg)) {
      std::string verbs;
      for (const std::string& name : verb_names(*current)) verbs += (verbs.empty() ? "" : ", ") + name;
      out += current->get_name() + " runs " + verbs + " on several processes; '" + arg +
             "' runs in one: medsynth-engine " + arg + " ...\n";
      break;
    }
    if (const auto close = closest_match(arg, verb_names(*current)))
      out += "unknown verb '" + arg + "'; did you mean '" + *close + "'?\n";
    break;
  }
  return out;
}

}  // namespace medsynth::cli
