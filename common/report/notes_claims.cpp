#include "common/report/notes_claims.hpp"

#include <array>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "common/report/translate.hpp"

namespace cudalab {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// The parts of `text` between the word `word` standing alone (blanks on both sides) outside
// parentheses: "a < b and c > d" by "and".
std::vector<std::string_view> split_on_word(std::string_view text, std::string_view word) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')') --depth;
    if (depth != 0 || !is_blank(text[i])) continue;
    const std::size_t end = i + 1 + word.size();
    if (end < text.size() && text.substr(i + 1, word.size()) == word && is_blank(text[end])) {
      parts.push_back(text.substr(start, i - start));
      start = end;
      i = end - 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

std::optional<double> plain_number(std::string_view text) {
  text = trimmed(text);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// The place of the first '*' outside parentheses, or npos.
std::size_t star_outside(std::string_view text) {
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')') --depth;
    if (text[i] == '*' && depth == 0) return i;
  }
  return std::string_view::npos;
}

// One side of a comparison: a plain number, a figure, or "N * figure".
std::optional<FigureValue> side_value(std::string_view side, const FigureSource& source, std::string& why,
                                      std::string& error) {
  side = trimmed(side);
  if (side.find('|') != std::string_view::npos) {
    error = "'" + std::string(side) + "': a condition's figure takes no '|' options";
    return std::nullopt;
  }
  double factor = 1;
  if (const std::size_t star = star_outside(side); star != std::string_view::npos) {
    const auto number = plain_number(side.substr(0, star));
    if (!number || star_outside(side.substr(star + 1)) != std::string_view::npos) {
      error = "'" + std::string(side) + "': a side is a figure or N * figure, N a plain number";
      return std::nullopt;
    }
    factor = *number;
    side = trimmed(side.substr(star + 1));
  }
  if (side.empty()) {
    error = "a comparison needs a figure on each side";
    return std::nullopt;
  }
  auto value = plain_number(side) ? std::optional<FigureValue>(FigureValue{*plain_number(side), ""})
                                  : figure_value(side, source, why);
  if (value) value->value *= factor;
  return value;
}

Truth from_bool(bool b) { return b ? Truth::yes : Truth::no; }

Truth check_truth(std::string_view key, const FigureSource& source, std::string& why) {
  if (source.run != nullptr) {
    for (const auto& c : source.run->checks) {
      if (c.key == key) return from_bool(c.passed);
    }
  }
  why = "the run has no check " + std::string(key);
  return Truth::unknown;
}

// "a < b", "check:KEY" or "not check:KEY".
Truth atom_truth(std::string_view atom, const FigureSource& source, std::string& why, std::string& error) {
  atom = trimmed(atom);
  bool negated = false;
  if (atom.substr(0, 4) == "not " || atom.substr(0, 4) == "not\t") {
    negated = true;
    atom = trimmed(atom.substr(4));
  }
  if (atom.substr(0, 6) == "check:") {
    const std::string_view key = trimmed(atom.substr(6));
    if (key.empty() || key.find_first_of(" \t<>=!") != std::string_view::npos) {
      error = "'" + std::string(atom) + "': check:KEY names one check";
      return Truth::unknown;
    }
    const Truth t = check_truth(key, source, why);
    if (!negated || t == Truth::unknown) return t;
    return t == Truth::yes ? Truth::no : Truth::yes;
  }
  if (negated) {
    error = "'not' goes only before check:KEY (write the opposite comparison)";
    return Truth::unknown;
  }
  int depth = 0;
  std::size_t at = std::string_view::npos;
  for (std::size_t i = 0; i < atom.size() && at == std::string_view::npos; ++i) {
    if (atom[i] == '(') ++depth;
    if (atom[i] == ')') --depth;
    if (depth == 0 && std::string_view("<>=!").find(atom[i]) != std::string_view::npos) at = i;
  }
  if (at == std::string_view::npos) {
    error = "'" + std::string(atom) + "' compares nothing (a < b, check:KEY)";
    return Truth::unknown;
  }
  const bool two = at + 1 < atom.size() && atom[at + 1] == '=';
  const std::string_view op = atom.substr(at, two ? 2 : 1);
  if (op == "=" || op == "!") {
    error = "'" + std::string(atom) + "': the comparisons are <, <=, >, >=, ==, !=";
    return Truth::unknown;
  }
  const std::string_view rest = atom.substr(at + op.size());
  if (rest.find_first_of("<>=!") != std::string_view::npos) {
    error = "'" + std::string(atom) + "': one comparison at a time (join them with and/or)";
    return Truth::unknown;
  }
  const auto left = side_value(atom.substr(0, at), source, why, error);
  if (!error.empty()) return Truth::unknown;
  const auto right = side_value(rest, source, why, error);
  if (!error.empty() || !left || !right) return Truth::unknown;
  double l = left->value, r = right->value;
  if (!left->unit.empty() && !right->unit.empty()) {
    const auto converted = figure_in_unit(*right, left->unit);
    if (!converted) {
      error = fmt::format("'{}' compares {} with {}", atom, left->unit, right->unit);
      return Truth::unknown;
    }
    r = *converted;
  }
  if (!std::isfinite(l) || !std::isfinite(r)) {
    why = "'" + std::string(atom) + "' is not finite in this run";
    return Truth::unknown;
  }
  if (op == "<") return from_bool(l < r);
  if (op == "<=") return from_bool(l <= r);
  if (op == ">") return from_bool(l > r);
  if (op == ">=") return from_bool(l >= r);
  if (op == "==") return from_bool(l == r);
  return from_bool(l != r);
}

}  // namespace

Truth evaluate_condition(std::string_view condition, const FigureSource& source, std::string& why,
                         std::string& error) {
  condition = trimmed(condition);
  if (condition.empty()) {
    error = "an empty condition";
    return Truth::unknown;
  }
  if (condition.size() > kMaxCondition) {
    error = fmt::format("a condition of more than {} characters", kMaxCondition);
    return Truth::unknown;
  }
  Truth any = Truth::no;  // "or" over the terms
  for (const auto term : split_on_word(condition, "or")) {
    Truth all = Truth::yes;  // "and" over the atoms
    for (const auto atom : split_on_word(term, "and")) {
      std::string atom_why;
      const Truth t = atom_truth(atom, source, atom_why, error);
      if (!error.empty()) return Truth::unknown;
      if (t == Truth::no) all = Truth::no;
      if (t == Truth::unknown && all == Truth::yes) {
        all = Truth::unknown;
        if (why.empty()) why = atom_why;
      }
    }
    if (all == Truth::yes) any = Truth::yes;
    if (all == Truth::unknown && any == Truth::no) any = Truth::unknown;
  }
  if (any != Truth::unknown) why.clear();
  return any;
}

namespace {

// One open {{if}} block while the text is read.
struct Frame {
  bool outer_prints = false;  // the text around the block is printed
  bool decided = false;       // a form was chosen (or the run cannot tell)
  bool prints = false;        // the current form is printed
  bool seen_else = false;
  bool seen_unknown = false;
  std::size_t claim = 0;      // its ClaimOutcome, when outer_prints
};

enum class Tag { none, if_, elif, else_, unknown, end };

Tag tag_of(std::string_view body, std::string_view& condition) {
  const std::string_view t = trimmed(body);
  if (t == "else") return Tag::else_;
  if (t == "unknown") return Tag::unknown;
  if (t == "end") return Tag::end;
  for (const auto& [word, tag] : {std::pair<std::string_view, Tag>{"if", Tag::if_}, {"elif", Tag::elif}}) {
    if (t.size() > word.size() && t.substr(0, word.size()) == word && is_blank(t[word.size()])) {
      condition = t.substr(word.size() + 1);
      return tag;
    }
    if (t == word) {
      condition = {};
      return tag;
    }
  }
  return Tag::none;
}

}  // namespace

namespace {

// Reads one text's blocks in order with a fixed stack: each tag changes the top frame.
class ClaimReader {
 public:
  explicit ClaimReader(const FigureSource& source) : source_(source) {}

  bool printing() const { return depth_ == 0 || stack_[depth_ - 1].prints; }
  void text(std::string_view words) {
    if (printing()) out_.text.append(words);
  }

  void tag(Tag tag, std::string_view body, std::string_view condition) {
    if (tag == Tag::if_) return open(condition);
    if (depth_ == 0) return fail("{{" + std::string(trimmed(body)) + "}} with no {{if}} open", printing());
    Frame& f = stack_[depth_ - 1];
    if (tag == Tag::elif) {
      if (f.seen_else || f.seen_unknown) return refuse(f, "{{elif}} after {{else}} or {{unknown}}");
      consider(f, condition);
    } else if (tag == Tag::else_) {
      if (f.seen_else) return refuse(f, "a second {{else}}");
      f.seen_else = true;
      f.prints = f.outer_prints && !f.decided;
      if (f.prints) out_.claims[f.claim].branch = -2;
      f.decided = true;
    } else if (tag == Tag::unknown) {
      if (f.seen_unknown) return refuse(f, "a second {{unknown}}");
      f.seen_unknown = true;
      f.prints = f.outer_prints && out_.claims[f.claim].cannot_tell;
    } else {  // end
      if (f.outer_prints && out_.claims[f.claim].cannot_tell && !f.seen_unknown) {
        out_.text += tr(source_.lang, "(this run cannot tell)");
      }
      --depth_;
    }
  }

  ClaimedText finish() {
    if (depth_ > 0) {
      out_.errors.push_back(fmt::format("{} {{{{if}}}} block(s) with no {{{{end}}}}", depth_));
      out_.text += "[malformed claim: no {{end}}]";
    }
    return std::move(out_);
  }

 private:
  // A malformed block is marked where the text around it is printed.
  void fail(std::string why, bool visible) {
    if (visible) out_.text += "[malformed claim: " + why + "]";
    out_.errors.push_back(std::move(why));
  }
  void refuse(Frame& f, const char* why) {
    f.prints = false;
    fail(why, f.outer_prints);
  }

  void open(std::string_view condition) {
    if (depth_ == kMaxClaimDepth) return fail(fmt::format("claims nest {} deep at most", kMaxClaimDepth), printing());
    Frame& f = stack_[depth_];
    f = Frame{};
    f.outer_prints = printing();
    if (f.outer_prints) {
      f.claim = out_.claims.size();
      out_.claims.emplace_back();
    }
    ++depth_;
    if (trimmed(condition).empty()) {
      fail("{{if}} needs a condition", f.outer_prints);
      f.decided = true;
      return;
    }
    consider(f, condition);
  }

  // Decides the form an {{if}} or {{elif}} opens: printed when its condition holds.
  void consider(Frame& f, std::string_view condition) {
    f.prints = false;
    if (!f.outer_prints || f.decided) return;
    std::string why, error;
    const Truth t = evaluate_condition(condition, source_, why, error);
    ClaimOutcome& claim = out_.claims[f.claim];
    claim.conditions.push_back({std::string(trimmed(condition)), t, error.empty() ? why : error});
    if (!error.empty()) {
      out_.errors.push_back("{{if " + std::string(trimmed(condition)) + "}}: " + error);
      out_.text += "[malformed claim: " + error + "]";
    }
    if (t == Truth::no) return;
    f.decided = true;
    f.prints = t == Truth::yes;
    claim.cannot_tell = t == Truth::unknown;
    if (t == Truth::yes) claim.branch = static_cast<int>(claim.conditions.size()) - 1;
  }

  const FigureSource& source_;
  ClaimedText out_;
  std::array<Frame, kMaxClaimDepth> stack_{};
  int depth_ = 0;
};

}  // namespace

ClaimedText choose_claims(std::string_view text, const FigureSource& source) {
  ClaimReader reader(source);
  while (!text.empty()) {
    const std::size_t open = text.find("{{");
    const std::size_t close = open == std::string_view::npos ? open : text.find("}}", open + 2);
    if (close == std::string_view::npos) break;  // an unclosed '{{' is the figures stage's to name
    reader.text(text.substr(0, open));
    const std::string_view body = text.substr(open + 2, close - open - 2);
    text.remove_prefix(close + 2);
    std::string_view condition;
    const Tag tag = tag_of(body, condition);
    if (tag == Tag::none) {
      reader.text(std::string("{{").append(body).append("}}"));
      continue;
    }
    reader.tag(tag, body, condition);
  }
  reader.text(text);
  return reader.finish();
}

NotesText render_notes_text(std::string_view text, const FigureSource& source) {
  ClaimedText claimed = choose_claims(text, source);
  ExpandedText expanded = expand_figures(claimed.text, source);
  NotesText out{std::move(expanded.text), std::move(claimed.errors), std::move(claimed.claims)};
  out.errors.insert(out.errors.end(), expanded.errors.begin(), expanded.errors.end());
  return out;
}

}  // namespace cudalab
