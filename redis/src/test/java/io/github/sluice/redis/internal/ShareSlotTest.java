package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Decision;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.testing.FakeClock;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The local share of lease mode, on a fake clock: randomized against a model (a grant is a count
 * that a take lowers while the grant lasts, a give-back of its own receipt raises up to what was
 * granted, and a drain closes), and many threads taking one grant at once never take more than it
 * holds.
 */
class ShareSlotTest {

    private static final long LIMIT = 1000;

    @Test
    void take_emptySlot_isSpent() {
        ShareSlot s = new ShareSlot(LIMIT);
        assertEquals(ShareSlot.Taken.SPENT, s.take(1, new FakeClock(), new MutableDecision()));
    }

    @Test
    void take_fromAShare_writesRemainingResetAndALocalReceipt() {
        FakeClock clock = new FakeClock();
        long now = clock.nanos();
        ShareSlot s = new ShareSlot(LIMIT);
        s.installShare(10, now + 100, 500, now + 2_000, 42, now);
        MutableDecision d = new MutableDecision();
        clock.advanceNanos(30);
        assertEquals(ShareSlot.Taken.ADMITTED, s.take(3, clock, d));
        assertEquals(LIMIT, d.limit());
        assertEquals(500 + 7, d.remaining());
        assertEquals(2_000 - 30, d.resetNanos());
        assertEquals(now + 30, d.nanos());
        assertTrue(ShareSlot.local(d.receipt()));
        clock.advanceNanos(70);
        assertEquals(ShareSlot.Taken.SPENT, s.take(1, clock, d), "the share ends at its instant");
    }

    @Test
    void take_underADenial_refusesWithTheTimeLeft() {
        FakeClock clock = new FakeClock();
        long now = clock.nanos();
        ShareSlot s = new ShareSlot(LIMIT);
        s.installDenial(now + 1_000, 1_000, 0, now + 5_000, now);
        MutableDecision d = new MutableDecision();
        clock.advanceNanos(400);
        assertEquals(ShareSlot.Taken.DENIED, s.take(1, clock, d));
        assertEquals(600, d.retryAfterNanos());
        s.installDenial(now + 1_000, Decision.NEVER, 0, now + 5_000, now);
        assertEquals(ShareSlot.Taken.DENIED, s.take(1, clock, d));
        assertEquals(Decision.NEVER, d.retryAfterNanos());
        clock.advanceNanos(600);
        assertEquals(ShareSlot.Taken.SPENT, s.take(1, clock, d));
    }

    @Test
    void claimRefill_oneAtATime_andNotOnceTheGrantChanged() {
        ShareSlot s = new ShareSlot(LIMIT);
        ShareSlot.Grant seen = s.grant();
        Object first = new Object();
        assertSame(first, s.claimRefill(seen, first));
        assertSame(first, s.claimRefill(seen, new Object()), "a second request joins the first refill");
        s.installShare(5, 100, 0, 0, 1, 0);
        assertNull(s.claimRefill(seen, new Object()), "a grant arrived since: take again");
    }

    @Test
    void retire_onlyAnIdleSlotWhoseGrantIsOver() {
        ShareSlot s = new ShareSlot(LIMIT);
        s.installShare(5, 100, 0, 0, 1, 0);
        assertNull(s.retire(99));
        Object refill = new Object();
        assertSame(refill, s.claimRefill(s.grant(), refill));
        assertNull(s.retire(100), "a refill in flight holds it");
        s.installShare(5, 200, 0, 0, 1, 100);
        ShareSlot.Grant g = s.retire(200);
        assertSame(s.grant(), g);
        assertSame(ShareSlot.RETIRED, s.refill());
        assertEquals(5, g.close());
        assertSame(ShareSlot.RETIRED, s.claimRefill(g, new Object()));
    }

    /** The model: one grant's count, its end, its number; a denial's end. */
    @Test
    void randomOperations_matchTheModel() {
        for (long seed = 0; seed < 200; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            FakeClock clock = new FakeClock();
            ShareSlot s = new ShareSlot(LIMIT);
            long left = 0;
            long granted = 0;
            long ends = Long.MIN_VALUE;
            long deniedUntil = Long.MIN_VALUE;
            boolean closed = false;
            long redisRemaining = 0;
            java.util.List<long[]> receipts = new java.util.ArrayList<>(); // {receipt, cost, grant index}
            int grantIndex = 0;
            MutableDecision d = new MutableDecision();
            for (int step = 0; step < 300; step++) {
                long now = clock.nanos();
                int op = r.nextInt(10);
                String where = "seed " + seed + " step " + step + " op " + op;
                if (op < 5) {
                    long cost = 1 + r.nextInt(4);
                    ShareSlot.Taken t = s.take(cost, clock, d);
                    if (deniedUntil != Long.MIN_VALUE) {
                        assertEquals(now < deniedUntil ? ShareSlot.Taken.DENIED : ShareSlot.Taken.SPENT, t, where);
                        if (t == ShareSlot.Taken.DENIED) {
                            assertEquals(deniedUntil - now, d.retryAfterNanos(), where);
                        }
                    } else if (now < ends && !closed && left >= cost) {
                        assertEquals(ShareSlot.Taken.ADMITTED, t, where);
                        left -= cost;
                        assertEquals(redisRemaining + left, d.remaining(), where);
                        receipts.add(new long[] {d.receipt(), cost, grantIndex});
                    } else {
                        assertEquals(ShareSlot.Taken.SPENT, t, where);
                    }
                } else if (op == 5 && !receipts.isEmpty()) {
                    long[] back = receipts.remove(r.nextInt(receipts.size()));
                    boolean expected = back[2] == grantIndex && !closed && deniedUntil == Long.MIN_VALUE;
                    assertEquals(expected, s.giveBack(back[1], back[0]), where);
                    if (expected) {
                        left = Math.min(granted, left + back[1]);
                    }
                } else if (op == 6) {
                    granted = 1 + r.nextInt(20);
                    left = granted;
                    ends = now + r.nextInt(1, 1_000);
                    redisRemaining = r.nextInt(500);
                    deniedUntil = Long.MIN_VALUE;
                    closed = false;
                    grantIndex++;
                    s.installShare(granted, ends, redisRemaining, now + 5_000, 7, now);
                } else if (op == 7) {
                    deniedUntil = now + r.nextInt(1, 1_000);
                    ends = deniedUntil;
                    granted = 0;
                    left = 0;
                    closed = false;
                    grantIndex++;
                    s.installDenial(deniedUntil, 1, 0, now, now);
                } else if (op == 8) {
                    long drained = s.grant().close();
                    assertEquals(closed ? 0 : left, drained, where);
                    closed = true;
                } else {
                    clock.advanceNanos(r.nextInt(300));
                }
            }
        }
    }

    @Test
    void manyThreads_takeOneGrant_neverMoreThanItHolds() throws Exception {
        FakeClock clock = new FakeClock();
        ShareSlot s = new ShareSlot(LIMIT);
        s.installShare(1_000, clock.nanos() + 1, 0, 0, 1, clock.nanos());
        AtomicLong admitted = new AtomicLong();
        CountDownLatch go = new CountDownLatch(1);
        Thread[] threads = new Thread[8];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new Thread(() -> {
                MutableDecision d = new MutableDecision();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int n = 0; n < 500; n++) {
                    if (s.take(1, clock, d) == ShareSlot.Taken.ADMITTED) {
                        admitted.incrementAndGet();
                    }
                }
            });
            threads[i].start();
        }
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(1_000, admitted.get());
        assertEquals(0, s.grant().left());
        assertFalse(s.giveBack(1, ShareSlot.LOCAL | 99), "a receipt of another grant");
    }
}
