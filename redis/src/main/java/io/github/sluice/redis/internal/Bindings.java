package io.github.sluice.redis.internal;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.FixedWindow;
import io.github.sluice.algorithm.Gcra;
import io.github.sluice.algorithm.LeakyBucket;
import io.github.sluice.algorithm.ShapingLeakyBucket;
import io.github.sluice.algorithm.SlidingLog;
import io.github.sluice.algorithm.SlidingWindow;
import io.github.sluice.algorithm.SmoothBursty;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Algorithm;
import io.github.sluice.core.Rate;
import java.time.Duration;

/**
 * Picks the script binding for an algorithm's class, converting its configuration to integer
 * microseconds once (durations rounded up, see {@link Micros}); the token bucket, GCRA and the
 * policing leaky bucket keep their exact schedule instead (see {@link Schedule}). Algorithms the Redis store cannot
 * run are refused with an {@link IllegalArgumentException} that says why.
 */
public final class Bindings {

    private Bindings() {
    }

    /**
     * @param algorithm the policy's algorithm
     * @param leaseMicros how long a concurrency permit lives without renewal, microseconds
     * @return its binding
     * @throws IllegalArgumentException if the Redis store does not support the algorithm, or a
     *     parameter is too large for exact integer arithmetic in Lua
     */
    public static Binding of(Algorithm<?> algorithm, long leaseMicros) {
        if (algorithm instanceof Concurrency c) {
            return concurrency(c, leaseMicros);
        }
        if (algorithm instanceof TokenBucket tb) {
            return tokenBucket(tb);
        }
        if (algorithm instanceof Gcra g) {
            return gcra(g);
        }
        if (algorithm instanceof FixedWindow f) {
            return fixedWindow(f);
        }
        if (algorithm instanceof SlidingWindow s) {
            return slidingWindow(s);
        }
        if (algorithm instanceof LeakyBucket l) {
            return leakyBucket(l);
        }
        if (algorithm instanceof SlidingLog l) {
            return slidingLog(l);
        }
        if (algorithm instanceof ShapingLeakyBucket s) {
            return shaping(s);
        }
        if ("warm-up".equals(algorithm.kind())) {
            throw new IllegalArgumentException("algorithm warm-up (" + algorithm + ") is not"
                    + " supported by the Redis store: its decisions use 128-bit fixed-point"
                    + " arithmetic that Lua, whose numbers are doubles exact only below 2^53,"
                    + " cannot reproduce exactly, so Redis would not decide as the in-memory"
                    + " algorithm does; keep warm-up policies in memory, or use token-bucket or"
                    + " gcra for a shared rate");
        }
        if (algorithm instanceof SmoothBursty b) {
            return smoothBursty(b);
        }
        throw new IllegalArgumentException("algorithm " + algorithm.kind() + " (" + algorithm
                + ") is not supported by the Redis store");
    }

    private static Binding tokenBucket(TokenBucket tb) {
        Schedule x = Schedule.of("token-bucket burst * interval", tb.rate(), tb.intervalNanos(), tb.burst());
        return new Binding(tb, x.ticks, x.step, tb.burst(), x.scale, x.divisor) {
            @Override
            public boolean nanosReply() {
                return x.nanos;
            }

            @Override
            public Algorithm<?> scaled(int instances) {
                return TokenBucket.builder()
                        .rate(Rate.of(1, Duration.ofNanos(stretch(tb.intervalNanos(), instances))))
                        .burst(share(tb.burst(), instances)).build();
            }
        };
    }

    private static Binding gcra(Gcra g) {
        Schedule x = Schedule.of("gcra emission interval * (burst + 1)", g.rate(), g.emissionIntervalNanos(),
                g.limit());
        return new Binding(g, x.ticks, x.step, g.limit(), x.scale, x.divisor) {
            @Override
            public boolean nanosReply() {
                return x.nanos;
            }

            @Override
            public Algorithm<?> scaled(int instances) {
                return Gcra.builder()
                        .rate(Rate.of(1, Duration.ofNanos(stretch(g.emissionIntervalNanos(), instances))))
                        .burst(share(g.limit(), instances) - 1).build();
            }
        };
    }

    private static Binding fixedWindow(FixedWindow f) {
        if (f.calendar() != null) {
            return calendarWindow(f);
        }
        long window = Micros.ceil("fixed-window window", f.windowNanos());
        Micros.checked("fixed-window limit", f.limit());
        boolean epoch = f.alignment() == FixedWindow.Alignment.EPOCH;
        return new Binding(f, f.limit(), window, epoch ? 1 : 0) {
            @Override
            public Algorithm<?> scaled(int instances) {
                return FixedWindow.builder().limit(share(f.limit(), instances))
                        .window(Duration.ofNanos(f.windowNanos())).alignment(f.alignment()).build();
            }
        };
    }

    /**
     * A calendar window: the limit, then the bounds of the windows before, holding and after the
     * call's local reading, which the script picks from by its own clock (see fixed-window.lua).
     */
    private static Binding calendarWindow(FixedWindow f) {
        Micros.checked("fixed-window limit", f.limit());
        return new Binding(f, "fixed-window-calendar", f.limit()) {
            private final byte[] limit = Resp.encoded(Long.toString(f.limit()));

            @Override
            protected boolean timeDependent() {
                return true;
            }

            @Override
            protected boolean writeParams(io.netty.buffer.ByteBuf buf, long at) {
                io.github.sluice.algorithm.CalendarPeriod.Window w = f.calendarWindow(at);
                buf.writeBytes(limit);
                Resp.bulk(buf, Math.floorDiv(w.previousStart(), 1000));
                Resp.bulk(buf, Math.floorDiv(w.start(), 1000));
                Resp.bulk(buf, Math.floorDiv(w.end(), 1000));
                Resp.bulk(buf, Math.floorDiv(w.nextEnd(), 1000));
                return true;
            }

            @Override
            public Algorithm<?> scaled(int instances) {
                return FixedWindow.of(share(f.limit(), instances), f.calendar());
            }
        };
    }

    private static Binding slidingWindow(SlidingWindow s) {
        long slot = Micros.ceil("sliding-window slot", s.slotNanos());
        Micros.checked("sliding-window limit", s.limit());
        Micros.product("sliding-window slot * slots", slot, s.slots() + 1L);
        return new Binding(s, s.limit(), slot, s.slots()) {
            @Override
            public Algorithm<?> scaled(int instances) {
                return SlidingWindow.builder().limit(share(s.limit(), instances))
                        .window(Duration.ofNanos(s.windowNanos())).slots(s.slots()).build();
            }
        };
    }

    private static Binding leakyBucket(LeakyBucket l) {
        Schedule x = Schedule.of("leaky-bucket capacity * interval", l.rate(), l.intervalNanos(), l.capacity());
        return new Binding(l, x.ticks, x.step, l.capacity(), x.scale, x.divisor) {
            @Override
            public boolean nanosReply() {
                return x.nanos;
            }

            @Override
            public Algorithm<?> scaled(int instances) {
                return LeakyBucket.builder().capacity(share(l.capacity(), instances))
                        .rate(Rate.of(1, Duration.ofNanos(stretch(l.intervalNanos(), instances)))).build();
            }
        };
    }

    private static Binding slidingLog(SlidingLog l) {
        long window = Micros.ceil("sliding-log window", l.windowNanos());
        return new Binding(l, l.limit(), window) {
            @Override
            public boolean needsRequestId() {
                return true;
            }

            @Override
            public Algorithm<?> scaled(int instances) {
                return SlidingLog.builder().limit(share(l.limit(), instances))
                        .window(Duration.ofNanos(l.windowNanos())).build();
            }
        };
    }

    private static Binding shaping(ShapingLeakyBucket s) {
        long interval = Micros.ceil("shaping interval", s.intervalNanos());
        long slack = Micros.product("shaping slack * interval", s.slack(), interval);
        // Rounded down: a request is never held longer than configured.
        long maxDelay = s.maxDelayNanos() / 1000;
        Micros.product("shaping limit * interval", s.limit(), interval);
        // The in-memory algorithm refuses forever a cost whose intervals exceed its longest
        // duration; the same threshold keeps both sides alike.
        long maxCost = Binding.MAX_NANOS / s.intervalNanos();
        Micros.product("shaping largest cost * interval", maxCost, interval);
        // Each start has its own entry: a missing key is a new one (empty) or an idle one (earned).
        String entry = s.start() == ShapingLeakyBucket.Start.EARNED ? "shaping-earned" : "shaping";
        // An empty-start key is kept one slack window beyond its reset (see shaping.lua).
        Micros.product("shaping (limit + slack) * interval", s.limit() + s.slack(), interval);
        return new Binding(s, entry, interval, slack, maxDelay, s.limit(), maxCost) {
            @Override
            public Algorithm<?> scaled(int instances) {
                // The slack is a burst: shared like a limit. The longest delay is per request.
                return ShapingLeakyBucket.builder()
                        .rate(Rate.of(1, Duration.ofNanos(stretch(s.intervalNanos(), instances))))
                        .slack(s.slack() / instances).start(s.start())
                        .maxDelay(Duration.ofNanos(s.maxDelayNanos())).build();
            }
        };
    }

    private static Binding smoothBursty(SmoothBursty b) {
        long interval = Micros.ceil("smooth-bursty interval", b.intervalNanos());
        long burst = Micros.ceil("smooth-bursty max burst", b.maxBurstNanos());
        // A full key is kept one max burst beyond its reset: twice the burst, plus the charge.
        Micros.checked("smooth-bursty twice the max burst", 2 * burst);
        Micros.checked("smooth-bursty limit", b.limit());
        // The in-memory algorithm refuses forever a cost whose charge exceeds its longest duration.
        long maxCost = Binding.MAX_NANOS / b.intervalNanos();
        Micros.product("smooth-bursty largest cost * interval", maxCost, interval);
        return new Binding(b, interval, burst, b.limit(), maxCost) {
            @Override
            public Algorithm<?> scaled(int instances) {
                // Each instance gets its share of the rate; the burst is idle time, so the permits
                // it stores shrink with the rate.
                return SmoothBursty.builder()
                        .rate(Rate.of(1, Duration.ofNanos(stretch(b.intervalNanos(), instances))))
                        .maxBurst(Duration.ofNanos(b.maxBurstNanos())).build();
            }
        };
    }

    private static Binding concurrency(Concurrency c, long leaseMicros) {
        Micros.checked("concurrency maxInFlight", c.maxInFlight());
        long retry = Concurrency.RETRY_AFTER_MILLIS * 1000;
        return new Binding(c, c.maxInFlight(), leaseMicros, 0, 0, retry) {
            @Override
            public boolean needsRequestId() {
                return true;
            }

            @Override
            public long maxWaitNanos() {
                return c.maxWaitNanos();
            }

            @Override
            public Algorithm<?> scaled(int instances) {
                return Concurrency.builder().maxInFlight(share(c.maxInFlight(), instances))
                        .maxWait(Duration.ofNanos(c.maxWaitNanos())).build();
            }
        };
    }
}
