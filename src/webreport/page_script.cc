#include "webreport/page_script.h"

namespace colo::webreport {

std::string_view PageStyle() {
  return R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 16px 24px; color: #222; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 4px; border-bottom: 1px solid #ccc; }
p.note { color: #555; max-width: 72em; margin: 4px 0 10px; }
nav a { margin-right: 12px; }
.figure { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start;
          margin: 10px 0 18px; }
.figure canvas { border: 1px solid #e4e4e4; background: #fff; }
.table-box { max-width: 640px; max-height: 380px; overflow: auto; }
table { border-collapse: collapse; font-size: 12px; }
caption { text-align: left; font-weight: 600; padding: 2px 0; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: right;
         white-space: nowrap; }
th { background: #f3f3f3; }
td:first-child, th:first-child { text-align: left; }
svg.plan rect { fill: #eef4fb; stroke: #6b8fb8; }
svg.plan .gpu-box { fill: #dfe8f3; stroke: #36597f; }
svg.plan .high rect { fill: #fdecec; stroke: #c0392b; stroke-width: 2; }
svg.plan .waiting rect { fill: #f4f4f4; stroke: #999; stroke-dasharray: 4 3; }
svg.plan text { font-size: 12px; fill: #222; }
svg.plan .gpu-title { font-weight: 600; }
svg.plan .gpu-sub { fill: #555; font-size: 11px; }
#colo-checks pre { background: #f6f6f6; padding: 6px; }
#colo-errors[data-count="0"] { color: #1a7f37; }
#colo-errors:not([data-count="0"]) { color: #b00020; white-space: pre-wrap; }
)css";
}

std::string_view ErrorCaptureScript() {
  return R"js(
(function () {
  'use strict';
  var notes = [];
  function show() {
    var el = document.getElementById('colo-errors');
    if (!el) return;
    el.setAttribute('data-count', String(notes.length));
    el.textContent = notes.length ? notes.join('\n') : 'no errors';
  }
  window.coloNote = function (kind, text) {
    notes.push(kind + ': ' + text);
    show();
  };
  window.coloShowNotes = show;
  window.onerror = function (message, source, line, column) {
    window.coloNote('error', message + ' (' + source + ':' + line + ':' +
                    column + ')');
    return false;
  };
  window.addEventListener('unhandledrejection', function (e) {
    window.coloNote('unhandled rejection', String(e.reason));
  });
  ['error', 'warn'].forEach(function (level) {
    var original = console[level];
    console[level] = function () {
      window.coloNote('console.' + level,
                      Array.prototype.map.call(arguments, String).join(' '));
      return original.apply(console, arguments);
    };
  });
})();
)js";
}

std::string_view PlotScript() {
  return R"js(
(function () {
  'use strict';
  var check = document.getElementById('colo-selfcheck');
  var lines = [];
  // Colors that stay apart for up to 10 series; more repeat with dashes.
  var palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd',
                 '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
  var model = JSON.parse(document.getElementById('colo-data').textContent);
  if (typeof Chart === 'undefined') {
    window.coloNote('error', 'Chart.js is not in the page');
  } else {
    model.plots.forEach(function (p) {
      var canvas = document.getElementById(p.id);
      var datasets = p.series.map(function (s, i) {
        var color = palette[i % palette.length];
        var dashed = s.dashed || i >= palette.length;
        return {
          label: s.label,
          data: s.points.map(function (pt) { return {x: pt[0], y: pt[1]}; }),
          borderColor: color,
          backgroundColor: p.kind === 'bar' ? color + 'cc' : color,
          borderDash: dashed ? [6, 4] : [],
          // A CDF between two of its points: the lower share holds until the
          // next point's latency (Chart.js 'before': across, then up).
          stepped: s.stepped ? 'before' : false,
          showLine: p.kind !== 'scatter',
          pointRadius: p.kind === 'scatter' ? 5 : 2.5,
          yAxisID: s.right_axis ? 'y2' : 'y',
          fill: false
        };
      });
      var scales = {
        x: {type: p.x_category ? 'category' : 'linear',
            title: {display: true, text: p.x_label}},
        y: {type: p.y_log ? 'logarithmic' : 'linear',
            title: {display: true, text: p.y_label},
            beginAtZero: p.kind === 'bar'}
      };
      if (p.y2_label) {
        scales.y2 = {position: 'right', title: {display: true,
                     text: p.y2_label}, grid: {drawOnChartArea: false}};
      }
      var data = {datasets: datasets};
      if (p.x_category) data.labels = p.labels;
      var chart = new Chart(canvas, {
        type: p.kind,
        data: data,
        options: {
          animation: false,
          responsive: false,
          plugins: {title: {display: true, text: p.title},
                    legend: {position: 'bottom'}},
          scales: scales
        }
      });
      // The points Chart.js made elements for, not the points it was given.
      var n = 0;
      chart.data.datasets.forEach(function (d, i) {
        n += chart.getDatasetMeta(i).data.length;
      });
      lines.push(p.id + ' ' + n);
    });
  }
  document.querySelectorAll('svg.plan').forEach(function (svg) {
    lines.push(svg.id + ' ' + svg.querySelectorAll('g.gpu, g.job').length);
  });
  check.textContent = lines.join('\n');
  check.setAttribute('data-plots', String(lines.length));
  check.setAttribute('data-status', 'done');
  window.coloShowNotes();
})();
)js";
}

}  // namespace colo::webreport
