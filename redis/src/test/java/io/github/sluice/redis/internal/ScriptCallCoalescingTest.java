package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Rate;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What coalescing reads from a call now that a part carries its client key and its policy's head
 * (the key's name is hashed only when the call is written): which calls name the same Redis keys,
 * the lane's spread, and the queue state that shares the call's finished flag.
 */
class ScriptCallCoalescingTest {

    private final KeyNames names = new KeyNames("sluice", null);
    private final KeyNames.Head perIp = names.head("per-ip");
    private final KeyNames.Head global = names.head("global");

    private static ScriptCall acquire(Part... parts) {
        return ScriptCall.of(null, ScriptCall.Via.EVALSHA, 'a', ScriptCall.REDIS_TIME, parts, 0, false, null);
    }

    private static Part part(KeyNames.Head head, String key) {
        Part p = new Part(null, head, 1);
        p.key = key;
        return p;
    }

    @Test
    void sameKeys_equalClientKeysInDistinctStrings_matchAndShareALane() {
        ScriptCall a = acquire(part(perIp, new String("10.0.0.1".getBytes(StandardCharsets.US_ASCII),
                StandardCharsets.US_ASCII)));
        ScriptCall b = acquire(part(perIp, new String("10.0.0.1".toCharArray())));

        assertTrue(a.sameKeys(b));
        assertTrue(b.sameKeys(a));
        assertEquals(a.keyHash(), b.keyHash());
    }

    @Test
    void sameKeys_differentKeysWhoseStringHashesCollide_doNotMatch() {
        // The attacker's move: a key chosen to land in a hot key's lane is never decided with it
        assertEquals("Aa".hashCode(), "BB".hashCode());
        ScriptCall a = acquire(part(perIp, "Aa"));
        ScriptCall b = acquire(part(perIp, "BB"));

        assertEquals(a.keyHash(), b.keyHash());
        assertFalse(a.sameKeys(b));
        assertFalse(b.sameKeys(a));
    }

    @Test
    void sameKeys_sameClientKeyUnderAnotherPolicy_doNotMatch() {
        assertFalse(acquire(part(perIp, "alice")).sameKeys(acquire(part(global, "alice"))));
    }

    @Test
    void sameKeys_equalHeadsHashedWithAnotherSecret_doNotMatch() {
        KeyNames keyed = new KeyNames("sluice", "secret".getBytes(StandardCharsets.US_ASCII));
        ScriptCall plain = acquire(part(perIp, "alice"));
        ScriptCall hmac = acquire(part(keyed.head("per-ip"), "alice"));

        assertFalse(plain.sameKeys(hmac));
        // The same names, another head object for the same policy: the same Redis key
        assertTrue(plain.sameKeys(acquire(part(names.head("per-ip"), "alice"))));
    }

    @Test
    void sameKeys_policiesInAnotherOrderOrCount_doNotMatch() {
        ScriptCall both = acquire(part(perIp, "alice"), part(global, "alice"));

        assertTrue(both.sameKeys(acquire(part(perIp, "alice"), part(global, "alice"))));
        assertFalse(both.sameKeys(acquire(part(global, "alice"), part(perIp, "alice"))));
        assertFalse(both.sameKeys(acquire(part(perIp, "alice"))));
    }

    @Test
    void sameKeys_wholeKeys_matchByTheirBytes() {
        ScriptCall a = acquire(new Part(null, KeyNames.Head.whole("k:{x}".getBytes(StandardCharsets.US_ASCII)), 1));
        ScriptCall b = acquire(new Part(null, KeyNames.Head.whole("k:{x}".getBytes(StandardCharsets.US_ASCII)), 1));
        ScriptCall c = acquire(new Part(null, KeyNames.Head.whole("k:{y}".getBytes(StandardCharsets.US_ASCII)), 1));

        assertTrue(a.sameKeys(b));
        assertEquals(a.keyHash(), b.keyHash());
        assertFalse(a.sameKeys(c));
    }

    @Test
    void take_afterAbandon_isRefused_andAbandonAfterTake_changesNothing() {
        ScriptCall abandoned = acquire(part(perIp, "alice"));
        abandoned.abandon();
        assertFalse(abandoned.take());

        ScriptCall taken = acquire(part(perIp, "alice"));
        assertTrue(taken.take());
        taken.abandon();
        assertFalse(taken.take()); // taken once
        assertFalse(taken.isDone());
    }

    @Test
    void laneHolder_finishedOnce_tellsItsHookOnce_andMarksItsLane() {
        AtomicInteger told = new AtomicInteger();
        ScriptCall holder = acquire(part(perIp, "alice"));
        assertNull(holder.marker());
        holder.holdLane(c -> told.incrementAndGet());
        assertTrue(holder.take()); // the queue state and the finished flag share one int

        holder.complete();
        holder.complete();
        holder.cancel();

        assertEquals(1, told.get());
        assertSame(holder, holder.marker());
        assertTrue(holder.acquisition()); // a holder is no batch
        assertNull(holder.members());
    }

    private final Binding bucket = Bindings.of(TokenBucket.builder().rate(Rate.perSecond(10)).burst(10).build(), 0);

    /** Three acquisitions on one key, the second asynchronous (its callback records when it runs). */
    private ScriptCall[] members(List<String> events) {
        ScriptCall[] m = new ScriptCall[3];
        for (int i = 0; i < m.length; i++) {
            Part p = new Part(bucket, perIp, i + 1);
            p.key = "alice";
            m[i] = ScriptCall.of(null, ScriptCall.Via.EVALSHA, 'a', ScriptCall.REDIS_TIME, new Part[] {p}, 0, false,
                    i == 1 ? c -> events.add("callback") : null);
            assertTrue(m[i].take());
        }
        return m;
    }

    private static ScriptCall batchOf(ScriptCall[] members) {
        return ScriptCall.batch(null, ScriptCall.Via.EVALSHA, 0, members, 0, members.length, false, c -> { }, 0,
                members[0]);
    }

    @Test
    void compactBatch_replyOfMasksAndChangedValues_eachMemberGetsItsOwnSixValues() {
        List<String> events = new ArrayList<>();
        ScriptCall[] m = members(events);
        ScriptCall batch = batchOf(m);
        assertTrue(batch.toString().contains("op c"), batch.toString());
        // admitted 9 left reset 100 receipt 7; then 8 left reset 200 (mask 2|4); then refused, 8 left,
        // retry-after 50, no receipt (mask 1|8|32)
        for (long v : new long[] {1 | 2 | 4 | 32, 1, 9, 100, 7, 2 | 4, 8, 200, 1 | 8 | 32, 0, 50, 0}) {
            batch.getOutput().set(v);
        }

        batch.completeMembers(b -> events.add("next"));

        assertEquals("[1, 9, 100, 0, 0, 7]", Arrays.toString(m[0].values()));
        assertEquals("[1, 8, 200, 0, 0, 7]", Arrays.toString(m[1].values()));
        assertEquals("[0, 8, 200, 50, 0, 0]", Arrays.toString(m[2].values()));
        for (ScriptCall c : m) {
            assertNull(c.failure());
        }
    }

    @Test
    void batchCompleted_waitingMembersWokenBeforeTheNextBatchIsSent_callbacksAfter() {
        List<String> events = new ArrayList<>();
        ScriptCall[] m = members(events);
        ScriptCall batch = batchOf(m);
        for (long v : new long[] {1 | 2 | 32, 1, 9, 7, 2, 8, 2, 7}) {
            batch.getOutput().set(v);
        }

        batch.completeMembers(b -> events.add("next: waiting members done " + m[0].isDone() + " " + m[2].isDone()
                + ", asynchronous done " + m[1].isDone()));

        assertEquals(List.of("next: waiting members done true true, asynchronous done false", "callback"), events);
    }

    @Test
    void compactBatch_malformedReply_everyMemberFailsAndTheNextBatchIsStillSent() {
        for (long[] reply : new long[][] {
            {1 | 2, 1, 9, 2, 8}, // a member short
            {1 | 2, 1, 9, 2, 8, 2, 7, 99}, // a value too many
            {64, 1, 0, 0}, // a mask out of range
            {-1, 0, 0}}) {
            List<String> events = new ArrayList<>();
            ScriptCall[] m = members(events);
            ScriptCall batch = batchOf(m);
            for (long v : reply) {
                batch.getOutput().set(v);
            }

            batch.completeMembers(b -> events.add("next"));

            assertTrue(events.contains("next"), Arrays.toString(reply));
            for (ScriptCall c : m) {
                assertTrue(c.isDone());
                assertTrue(c.failure() instanceof IllegalStateException, Arrays.toString(reply) + ": " + c.failure());
            }
        }
    }

    @Test
    void batches_areTimedAsAcquisitions() {
        assertEquals(0, ScriptCall.operation('a'));
        assertEquals(0, ScriptCall.operation('b'));
        assertEquals(0, ScriptCall.operation('c'));
    }
}
