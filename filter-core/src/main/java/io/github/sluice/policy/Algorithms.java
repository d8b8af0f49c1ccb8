package io.github.sluice.policy;

import io.github.sluice.adaptive.AdaptiveLimit;
import io.github.sluice.adaptive.Aimd;
import io.github.sluice.adaptive.Bbr;
import io.github.sluice.adaptive.Gradient;
import io.github.sluice.adaptive.Vegas;
import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.algorithm.WarmUp;
import io.github.sluice.core.Algorithm;
import io.github.sluice.internal.Checks;
import io.github.sluice.internal.Suggest;
import io.github.sluice.internal.Units;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.DoubleFunction;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * The table from an algorithm's name in the policy language to its builder. Each entry reads its
 * positional arguments and options from {@link Args} and calls the algorithm's public builder one
 * setter at a time, so that a builder's refusal names the parameter it concerns; an option left
 * out is left unset, so that the builder's default applies, and {@code Policy.parse(text)} equals
 * the policy built in code with the same settings.
 */
final class Algorithms {

    private static final Map<String, Function<Args, Algorithm<?>>> TABLE = new LinkedHashMap<>();

    static {
        TABLE.put("token-bucket", Algorithms::tokenBucket);
        TABLE.put("gcra", Algorithms::gcra);
        TABLE.put("fixed-window", Algorithms::fixedWindow);
        TABLE.put("sliding-window", Algorithms::slidingWindow);
        TABLE.put("leaky-bucket", Algorithms::leakyBucket);
        TABLE.put("concurrency", Algorithms::concurrency);
        TABLE.put("shaping", Algorithms::shaping);
        TABLE.put("sliding-log", Algorithms::slidingLog);
        TABLE.put("warm-up", Algorithms::warmUp);
        TABLE.put("smooth-bursty", Algorithms::smoothBursty);
        TABLE.put("adaptive", Algorithms::adaptive);
    }

    private Algorithms() {
    }

    static Set<String> kinds() {
        return Collections.unmodifiableSet(TABLE.keySet());
    }

    static Algorithm<?> build(Line ctx, Args args) {
        Function<Args, Algorithm<?>> f = TABLE.get(args.kind);
        if (f == null) {
            String near = Suggest.nearest(args.kind, TABLE.keySet());
            throw ctx.error("algorithm", args.kind, "unknown algorithm"
                    + (near == null ? "; known algorithms: " : "; did you mean '" + near + "'? Known algorithms: ")
                    + TABLE.keySet());
        }
        return f.apply(args);
    }

    /** {@code token-bucket 100/1m [burst=20]}: burst defaults to the rate's permits. */
    private static Algorithm<?> tokenBucket(Args a) {
        Line ctx = a.ctx;
        TokenBucket.Builder b = TokenBucket.builder();
        Args.Rate rate = a.rate("rate", true);
        ctx.call("rate", rate.text(), () -> b.rate(rate.value()));
        String burst = a.option("burst");
        if (burst != null) {
            long n = a.longValue("burst", burst, intervals(rate, 0),
                    atMost(intervals(rate, 0), rate, "a full bucket must refill within about 73 years"));
            ctx.call("burst", burst, () -> b.burst(n));
        }
        return ctx.call("rate", rate.text(), b::build);
    }

    /** {@code gcra 100/1m [burst=N]}: burst defaults to permits - 1, so that the limit is the permits. */
    private static Algorithm<?> gcra(Args a) {
        Line ctx = a.ctx;
        Gcra.Builder b = Gcra.builder();
        Args.Rate rate = a.rate("rate", true);
        ctx.call("rate", rate.text(), () -> b.rate(rate.value()));
        String burst = a.option("burst");
        if (burst != null) {
            long n = a.longValue("burst", burst, intervals(rate, 1),
                    atMost(intervals(rate, 1), rate, "a full bucket must refill within about 73 years"));
            ctx.call("burst", burst, () -> b.burst(n));
        }
        return ctx.call("rate", rate.text(), b::build);
    }

    /** {@code fixed-window 5/1m [align=epoch|first-request]}, or a calendar window (see {@link CalendarSpec}). */
    private static Algorithm<?> fixedWindow(Args a) {
        if (CalendarSpec.isCalendar(a.peekPositional())) {
            return CalendarSpec.fixedWindow(a); // 10000/month [zone=Europe/Paris] [week-start=monday]
        }
        Line ctx = a.ctx;
        FixedWindow.Builder b = FixedWindow.builder();
        Args.Rate limit = a.rate("limit", false);
        CalendarSpec.refuseOnDuration(a, limit.text());
        ctx.call("limit", limit.text(), () -> b.limit(limit.permits()));
        ctx.call("limit", limit.text(), () -> b.window(limit.period()));
        String align = a.option("align");
        if (align != null) {
            FixedWindow.Alignment alignment = switch (align) {
                case "epoch" -> FixedWindow.Alignment.EPOCH;
                case "first-request" -> FixedWindow.Alignment.FIRST_REQUEST;
                default -> throw ctx.error("align", align, "align must be epoch or first-request"
                        + Suggest.didYouMean(align, java.util.List.of("epoch", "first-request")));
            };
            b.alignment(alignment);
        }
        return ctx.call("limit", limit.text(), b::build);
    }

    /** {@code sliding-window 100/1m [slots=10]}. */
    private static Algorithm<?> slidingWindow(Args a) {
        Line ctx = a.ctx;
        SlidingWindow.Builder b = SlidingWindow.builder();
        Args.Rate limit = a.rate("limit", false);
        ctx.call("limit", limit.text(), () -> b.limit(limit.permits()));
        ctx.call("limit", limit.text(), () -> b.window(limit.period()));
        String slots = a.option("slots");
        if (slots != null) {
            long n = a.longValue("slots", slots, SlidingWindow.MAX_SLOTS);
            ctx.call("slots", slots, () -> b.slots((int) Math.max(Integer.MIN_VALUE, n)));
        }
        return ctx.call("limit", limit.text(), b::build);
    }

    /** {@code leaky-bucket 10/1s [capacity=N]}: leaks at the rate; capacity defaults to the rate's permits. */
    private static Algorithm<?> leakyBucket(Args a) {
        Line ctx = a.ctx;
        LeakyBucket.Builder b = LeakyBucket.builder();
        Args.Rate rate = a.rate("rate", true);
        ctx.call("rate", rate.text(), () -> b.rate(rate.value()));
        String capacity = a.option("capacity");
        if (capacity != null) {
            long n = a.longValue("capacity", capacity, intervals(rate, 0),
                    atMost(intervals(rate, 0), rate, "a full bucket must drain within about 73 years"));
            ctx.call("capacity", capacity, () -> b.capacity(n));
        }
        return ctx.call("rate", rate.text(), b::build);
    }

    /** {@code shaping 10/1s [slack=N] [start=empty|earned] [max-delay=DURATION]}. */
    private static Algorithm<?> shaping(Args a) {
        Line ctx = a.ctx;
        ShapingLeakyBucket.Builder b = ShapingLeakyBucket.builder();
        Args.Rate rate = a.rate("rate", true);
        ctx.call("rate", rate.text(), () -> b.rate(rate.value()));
        String maxDelay = a.option("max-delay");
        Duration delay = ShapingLeakyBucket.DEFAULT_MAX_DELAY;
        if (maxDelay != null) {
            Duration d = a.duration("max-delay", maxDelay);
            ctx.call("max-delay", maxDelay, () -> b.maxDelay(d));
            delay = d;
        }
        String slack = a.option("slack");
        if (slack != null) {
            // The builder refuses slack + 1 + max-delay / interval intervals beyond the longest duration.
            long interval = interval(rate);
            long max = Checks.MAX_NANOS / interval - 1 - delay.toNanos() / interval;
            long n = max < 0 ? a.longValue("slack", slack, Args.MAX_NUMBER)
                    : a.longValue("slack", slack, max, "at most " + max + " for a rate of " + rate.text()
                            + " and a max-delay of " + (maxDelay == null ? Units.duration(delay) : maxDelay)
                            + " (together they must stay within about 73 years)");
            ctx.call("slack", slack, () -> b.slack(n));
        }
        String start = a.option("start");
        if (start != null) {
            b.start(switch (start) {
                case "empty" -> ShapingLeakyBucket.Start.EMPTY;
                case "earned" -> ShapingLeakyBucket.Start.EARNED;
                default -> throw ctx.error("start", start, "start must be empty (no slack banked, as"
                        + " uber-go/ratelimit's New) or earned (slack already earned, idle keys evicted"
                        + " without loss)" + Suggest.didYouMean(start, java.util.List.of("empty", "earned")));
            });
        }
        return ctx.call("rate", rate.text(), b::build);
    }

    /** {@code sliding-log 100/1m}. */
    private static Algorithm<?> slidingLog(Args a) {
        Line ctx = a.ctx;
        SlidingLog.Builder b = SlidingLog.builder();
        Args.Rate limit = a.rate("limit", false);
        ctx.call("limit", limit.text(), () -> b.limit(limit.permits()));
        ctx.call("limit", limit.text(), () -> b.window(limit.period()));
        return ctx.call("limit", limit.text(), b::build);
    }

    /** {@code warm-up 10/1s warm-up=30s [cold-factor=3]}. */
    private static Algorithm<?> warmUp(Args a) {
        Line ctx = a.ctx;
        WarmUp.Builder b = WarmUp.builder();
        Args.Rate rate = a.rate("rate", true);
        ctx.call("rate", rate.text(), () -> b.rate(rate.value()));
        String warmUp = a.option("warm-up");
        if (warmUp == null) {
            throw ctx.error("warm-up", null, "warm-up needs warm-up=DURATION, the time to reach the stable rate, "
                    + "e.g. warm-up=30s" + a.misspelt("warm-up"));
        }
        Duration d = a.duration("warm-up", warmUp);
        ctx.call("warm-up", warmUp, () -> b.warmUp(d));
        String cold = a.option("cold-factor");
        if (cold != null) {
            double f = a.doubleValue("cold-factor", cold, WarmUp.MAX_COLD_FACTOR);
            ctx.call("cold-factor", cold, () -> b.coldFactor(f));
        }
        return ctx.call("rate", rate.text(), b::build);
    }

    /** {@code smooth-bursty 5/1s [max-burst=1s]}: Guava's SmoothBursty; max-burst defaults to one second. */
    private static Algorithm<?> smoothBursty(Args a) {
        Line ctx = a.ctx;
        SmoothBursty.Builder b = SmoothBursty.builder();
        Args.Rate rate = a.rate("rate", true);
        ctx.call("rate", rate.text(), () -> b.rate(rate.value()));
        String maxBurst = a.option("max-burst");
        if (maxBurst != null) {
            Duration d = a.duration("max-burst", maxBurst);
            ctx.call("max-burst", maxBurst, () -> b.maxBurst(d));
        }
        return ctx.call("rate", rate.text(), b::build);
    }

    /** {@code concurrency 50 [max-wait=DURATION]}: permits held per key while requests are in flight. */
    private static Algorithm<?> concurrency(Args a) {
        Line ctx = a.ctx;
        Concurrency.Builder b = Concurrency.builder();
        long max = a.count("max-in-flight", Args.MAX_NUMBER);
        ctx.call("max-in-flight", Long.toString(max), () -> b.maxInFlight(max));
        String wait = a.option("max-wait");
        if (wait != null) {
            Duration d = a.duration("max-wait", wait);
            ctx.call("max-wait", wait, () -> b.maxWait(d));
        }
        return ctx.call("max-in-flight", Long.toString(max), b::build);
    }

    /** The nanoseconds between two permits of a rate the builder accepted. */
    private static long interval(Args.Rate rate) {
        return Checks.intervalNanos(rate.permits(), rate.period().toNanos());
    }

    /**
     * The most intervals of a rate that fit in the longest duration, less {@code less}: the
     * largest burst or capacity whose refill time the algorithm can hold.
     */
    private static long intervals(Args.Rate rate, long less) {
        return Checks.MAX_NANOS / interval(rate) - less;
    }

    private static String atMost(long max, Args.Rate rate, String why) {
        return "at most " + max + " for a rate of " + rate.text() + " (" + why + ")";
    }

    // ---- adaptive concurrency (docs/adaptive.md) ----------------------------------------------

    /**
     * {@code adaptive gradient|vegas|aimd|bbr [min=N] [max=N] [initial=N] [idle=DURATION] ...}:
     * a concurrency limit that moves with measured latency; each rule takes its own options
     * (names as its builder's setters, in kebab case).
     */
    private static Algorithm<?> adaptive(Args a) {
        Line ctx = a.ctx;
        String rule = a.positional("rule", "a rule (gradient, vegas, aimd or bbr)");
        return switch (rule) {
            case "gradient" -> {
                Gradient.Builder b = Gradient.builder();
                adaptiveCommon(a, b);
                batch(a, b::samples, b::window);
                decimal(a, "tolerance", 10, b::tolerance);
                decimal(a, "smoothing", 1, b::smoothing);
                whole(a, "queue", b::queue);
                whole(a, "long-window", b::longWindow);
                yield ctx.call("rule", rule, b::build);
            }
            case "vegas" -> {
                Vegas.Builder b = Vegas.builder();
                adaptiveCommon(a, b);
                batch(a, b::samples, b::window);
                whole(a, "alpha", b::alpha);
                whole(a, "beta", b::beta);
                whole(a, "probe", b::probe);
                yield ctx.call("rule", rule, b::build);
            }
            case "aimd" -> {
                Aimd.Builder b = Aimd.builder();
                adaptiveCommon(a, b);
                batch(a, b::samples, b::window);
                decimal(a, "backoff", 1, b::backoff);
                time(a, "latency", b::latency);
                yield ctx.call("rule", rule, b::build);
            }
            case "bbr" -> {
                Bbr.Builder b = Bbr.builder();
                adaptiveCommon(a, b);
                decimal(a, "cpu", 1, b::cpu);
                time(a, "window", b::window);
                whole(a, "buckets", n -> b.buckets((int) Math.min(Integer.MAX_VALUE, n)));
                time(a, "cool-down", b::coolDown);
                yield ctx.call("rule", rule, b::build);
            }
            default -> throw ctx.error("rule", rule, "unknown adaptive rule"
                    + Suggest.didYouMean(rule, List.of("gradient", "vegas", "aimd", "bbr"))
                    + "; known rules: [gradient, vegas, aimd, bbr]");
        };
    }

    private static void adaptiveCommon(Args a, AdaptiveLimit.Builder<?, ?> b) {
        whole(a, "min", b::min);
        whole(a, "max", b::max);
        whole(a, "initial", b::initial);
        time(a, "idle", b::idle);
        String partitions = a.option("partitions");
        if (partitions != null) {
            for (String item : partitions.split(",", -1)) {
                int colon = item.indexOf(':');
                String name = colon < 0 ? item.strip() : item.substring(0, colon).strip();
                String percent = colon < 0 ? "" : item.substring(colon + 1).strip();
                if (name.isEmpty() || percent.isEmpty()) {
                    throw a.ctx.error("partitions", partitions, "partitions must be name:percent items "
                            + "separated by commas, e.g. partitions=paid:70,free:30, but '" + item.strip() + "' is not");
                }
                double share = a.doubleValue("partitions", percent, 100) / 100;
                a.ctx.call("partitions", partitions, () -> b.partition(name, share));
            }
        }
    }

    private static void batch(Args a, LongFunction<?> samples, Function<Duration, ?> window) {
        whole(a, "samples", samples);
        time(a, "window", window);
    }

    private static void whole(Args a, String name, LongFunction<?> setter) {
        String text = a.option(name);
        if (text != null) {
            long v = a.longValue(name, text, Args.MAX_NUMBER);
            a.ctx.call(name, text, () -> setter.apply(v));
        }
    }

    private static void decimal(Args a, String name, double max, DoubleFunction<?> setter) {
        String text = a.option(name);
        if (text != null) {
            double v = a.doubleValue(name, text, max);
            a.ctx.call(name, text, () -> setter.apply(v));
        }
    }

    private static void time(Args a, String name, Function<Duration, ?> setter) {
        String text = a.option(name);
        if (text != null) {
            Duration d = a.duration(name, text);
            a.ctx.call(name, text, () -> setter.apply(d));
        }
    }
}
