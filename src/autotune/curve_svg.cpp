// write_curve_svg: a task's tuning curve as a small SVG with two panels.
#include <algorithm>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "autotune/tune.h"
#include "support/error.h"

namespace tessel::autotune {
namespace {

constexpr double kWidth = 360, kHeight = 240, kMargin = 48;

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

/// One panel at horizontal offset `left`: best GFLOP/s against x(point).
template <class X>
void panel(std::ostream& svg, const std::vector<CurvePoint>& curve, double left,
           const std::string& x_label, X x_of, double y_max) {
  double x_max = 0;
  for (const CurvePoint& p : curve) x_max = std::max(x_max, x_of(p));
  if (x_max <= 0) x_max = 1;
  double plot_w = kWidth - 2 * kMargin, plot_h = kHeight - 2 * kMargin;
  auto sx = [&](double x) { return left + kMargin + x / x_max * plot_w; };
  auto sy = [&](double y) { return kHeight - kMargin - y / y_max * plot_h; };
  svg << "<rect x='" << left + kMargin << "' y='" << kMargin << "' width='" << plot_w
      << "' height='" << plot_h << "' fill='none' stroke='#888'/>\n";
  svg << "<polyline fill='none' stroke='#1565c0' stroke-width='2' points='";
  for (const CurvePoint& p : curve) svg << sx(x_of(p)) << "," << sy(p.best_gflops) << " ";
  svg << "'/>\n";
  svg << "<text x='" << left + kWidth / 2 << "' y='" << kHeight - 12
      << "' text-anchor='middle' font-size='12'>" << x_label << " (0 to " << std::setprecision(4)
      << x_max << ")</text>\n";
  svg << "<text x='" << left + kMargin - 4 << "' y='" << kMargin + 4
      << "' text-anchor='end' font-size='10'>" << std::setprecision(4) << y_max << "</text>\n";
  svg << "<text x='" << left + kMargin - 4 << "' y='" << kHeight - kMargin
      << "' text-anchor='end' font-size='10'>0</text>\n";
}

}  // namespace

void write_curve_svg(const TaskResult& result, const std::string& path) {
  double y_max = 1;
  for (const CurvePoint& p : result.curve) y_max = std::max(y_max, p.best_gflops * 1.1);
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << 2 * kWidth << "' height='" << kHeight
      << "' font-family='sans-serif'>\n";
  svg << "<rect width='100%' height='100%' fill='white'/>\n";
  svg << "<text x='" << kWidth << "' y='20' text-anchor='middle' font-size='13'>"
      << escape(result.name) << ": best GFLOP/s</text>\n";
  panel(
      svg, result.curve, 0, "trials", [](const CurvePoint& p) { return double(p.trial); }, y_max);
  panel(
      svg, result.curve, kWidth, "seconds", [](const CurvePoint& p) { return p.seconds; }, y_max);
  svg << "</svg>\n";
  std::ofstream out(path);
  out << svg.str();
  if (!out) TESSEL_USER_ERROR("cannot write the tuning curve '", path, "'");
}

}  // namespace tessel::autotune
