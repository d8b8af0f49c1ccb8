package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
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

    @Test
    void batches_areTimedAsAcquisitions() {
        assertEquals(0, ScriptCall.operation('a'));
        assertEquals(0, ScriptCall.operation('b'));
        assertEquals(0, ScriptCall.operation('c'));
    }
}
