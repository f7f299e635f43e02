// The files report.html (and compare.html) inline, compiled in at build time
// (embed_assets.cmake generates their definitions from FLEET_CHARTJS, assets/report.js,
// assets/report.css and insight/compare/assets/compare.js and assets/l2_report.js), so a report
// needs nothing at run time: no install path, no network.
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
extern const unsigned char kCompareJs[];
extern const std::size_t kCompareJsSize;
extern const unsigned char kL2ReportJs[];
extern const std::size_t kL2ReportJsSize;

inline std::string_view text(const unsigned char* bytes, std::size_t size) {
  return {reinterpret_cast<const char*>(bytes), size};
}
inline std::string_view chart_js() { return text(kChartJs, kChartJsSize); }
inline std::string_view report_js() { return text(kReportJs, kReportJsSize); }
inline std::string_view report_css() { return text(kReportCss, kReportCssSize); }
inline std::string_view compare_js() { return text(kCompareJs, kCompareJsSize); }
inline std::string_view l2_report_js() { return text(kL2ReportJs, kL2ReportJsSize); }

}  // namespace fleet::report::html::assets
