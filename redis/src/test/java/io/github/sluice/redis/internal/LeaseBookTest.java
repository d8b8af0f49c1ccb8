package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.redis.internal.LeaseBook.Lease;
import io.github.sluice.redis.internal.LeaseBook.Where;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LeaseBookTest {

    private final LeaseBook book = new LeaseBook();

    @Test
    void pop_takesTheNewestLeasesFirst_splittingTheLast() {
        book.push("k", new Lease(Where.REDIS, "a", 1, 2));
        book.push("k", new Lease(Where.LOCAL, null, 1, 1));

        List<Lease> taken = book.pop("k", 2);

        assertEquals(List.of(new Lease(Where.LOCAL, null, 1, 1), new Lease(Where.REDIS, "a", 2, 1)), taken);
        assertEquals(Map.of("k", List.of(new Lease(Where.REDIS, "a", 1, 1))), book.redisLeases());
        assertEquals(List.of(new Lease(Where.REDIS, "a", 1, 1)), book.pop("k", 5));
        assertEquals(0, book.keys());
    }

    @Test
    void pop_withoutAcquisition_takesNothing() {
        assertEquals(List.of(), book.pop("unknown", 1));
    }
}
