// The files report.html inlines, compiled in at build time (embed_assets.cmake generates their
// definitions from FLEET_CHARTJS, assets/report.js and assets/report.css), so a report needs
// nothing at run time: no install path, no network.
#pragma once

#include <cstddef>
#include <string_view>

namespace fleet::report::html::assets {

extern const unsigned char kChartJs[];
extern const std::size_t kChartJsSize;
extern const unsigned char kReportJs[];
extern const std::size_t kReportJsSize;
extern const unsigned char kReportCss[];
extern const std::size_t kReportCssSize;

inline std::string_view text(const unsigned char* bytes, std::size_t size) {
  return {reinterpret_cast<const char*>(bytes), size};
}
inline std::string_view chart_js() { return text(kChartJs, kChartJsSize); }
inline std::string_view report_js() { return text(kReportJs, kReportJsSize); }
inline std::string_view report_css() { return text(kReportCss, kReportCssSize); }

}  // namespace fleet::report::html::assets
