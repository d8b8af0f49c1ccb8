package io.github.sluice.adaptive;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Draws the simulation's time series as one SVG: three panels (limit, goodput, p99 latency)
 * over time, one line per run, the phases shaded. Plain text, no library, the same bytes for
 * the same runs.
 */
final class SimulationChart {

    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
        "#8c564b", "#e377c2", "#7f7f7f"};
    private static final int WIDTH = 940;
    private static final int PANEL = 200;
    private static final int LEFT = 70;
    private static final int RIGHT = 230;
    private static final int TOP = 40;
    private static final int GAP = 45;

    private SimulationChart() {
    }

    /**
     * @param title the chart's title
     * @param runs the runs to draw, all of the same scenario
     * @param scenario that scenario
     * @param unloadedP99 the p99 latency without load, milliseconds, drawn as a reference line
     * @return the SVG document
     */
    static String svg(String title, List<Simulation.Run> runs, Simulation.Scenario scenario, double unloadedP99) {
        int height = TOP + 3 * PANEL + 3 * GAP;
        double seconds = scenario.startNanos(scenario.phases().size()) / 1e9;
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, height));
        b.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, height));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"15\">%s</text>%n", LEFT, escape(title)));
        double maxLimit = runs.stream().flatMap(r -> r.ticks().stream()).mapToDouble(Simulation.Tick::limit)
                .max().orElse(1);
        double maxP99 = Math.max(3 * unloadedP99, 0);
        panel(b, 0, "limit (permits)", runs, scenario, seconds, Simulation.Tick::limit, niceCeiling(maxLimit * 1.05), -1);
        panel(b, 1, "goodput (share of capacity)", runs, scenario, seconds, Simulation.Tick::goodput, 1.2, 1.0);
        panel(b, 2, "p99 latency (ms); dashed: 2x unloaded p99", runs, scenario, seconds,
                t -> Math.min(t.p99Millis(), maxP99), maxP99, 2 * unloadedP99);
        for (int i = 0; i < runs.size(); i++) {
            int y = TOP + 10 + 18 * i;
            int x = WIDTH - RIGHT + 15;
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                    + "stroke-width=\"2\"/>%n", x, y, x + 20, y, COLORS[i % COLORS.length]));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", x + 26, y + 4,
                    escape(runs.get(i).name())));
        }
        b.append("</svg>\n");
        return b.toString();
    }

    private static void panel(StringBuilder b, int index, String label, List<Simulation.Run> runs,
            Simulation.Scenario scenario, double seconds, ToDoubleFunction<Simulation.Tick> value, double max,
            double reference) {
        int top = TOP + index * (PANEL + GAP) + 10;
        int plotWidth = WIDTH - LEFT - RIGHT;
        // Phases, shaded alternately and named.
        double start = 0;
        for (int p = 0; p < scenario.phases().size(); p++) {
            Simulation.Phase phase = scenario.phases().get(p);
            double x0 = LEFT + plotWidth * start / seconds;
            double w = plotWidth * phase.seconds() / seconds;
            if (p % 2 == 1) {
                b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                        + "fill=\"#f0f0f0\"/>%n", x0, top, w, PANEL));
            }
            if (index == 0) {
                b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" fill=\"#555\">%s (%.1fx, %d w.)"
                        + "</text>%n", x0 + 4, top - 4, escape(phase.name()), phase.load(), phase.workers()));
            }
            start += phase.seconds();
        }
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                + "stroke=\"#333\"/>%n", LEFT, top, plotWidth, PANEL));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" transform=\"rotate(-90 %d %d)\" "
                + "text-anchor=\"middle\">%s</text>%n", 18, top + PANEL / 2, 18, top + PANEL / 2, escape(label)));
        for (int i = 0; i <= 4; i++) {
            double v = max * i / 4;
            double y = top + PANEL - PANEL * v / max;
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                    LEFT - 5, y + 4, format(v)));
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n",
                    LEFT, y, LEFT + plotWidth, y));
        }
        int step = seconds > 20 ? 10 : 1;
        for (int s = 0; s <= (int) seconds; s += step) {
            double x = LEFT + plotWidth * s / seconds;
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%ds</text>%n",
                    x, top + PANEL + 14, s));
        }
        if (reference > 0) {
            double y = top + PANEL - PANEL * reference / max;
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#000\" "
                    + "stroke-dasharray=\"5,4\"/>%n", LEFT, y, LEFT + plotWidth, y));
        }
        for (int r = 0; r < runs.size(); r++) {
            StringBuilder points = new StringBuilder();
            List<Simulation.Tick> ticks = runs.get(r).ticks();
            // At most about 600 points a line: the chart is 640 pixels wide.
            int stride = Math.max(1, ticks.size() / 600);
            for (int i = stride - 1; i < ticks.size(); i += stride) {
                Simulation.Tick t = ticks.get(i);
                double x = LEFT + plotWidth * t.seconds() / seconds;
                double v = Math.max(0, Math.min(max, value.applyAsDouble(t)));
                double y = top + PANEL - PANEL * v / max;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            }
            b.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
                    + "points=\"%s\"/>%n", COLORS[r % COLORS.length], points.toString().trim()));
        }
    }

    private static double niceCeiling(double v) {
        double step = Math.pow(10, Math.floor(Math.log10(v)));
        return Math.ceil(v / step * 2) / 2 * step;
    }

    private static String format(double v) {
        return Math.abs(v) >= 10 || v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
