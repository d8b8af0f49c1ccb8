package io.github.sluice.demo;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Six requests in a row from one client, as fast as the server answers, timed from the client.
 *
 * <p>The demo's windows are real (10 s, opened by a key's first request), so {@code t} reads 10
 * only while less than a second has passed since the window opened. A burst that the client saw
 * take a second or more (a loaded build machine) proves nothing about the exact values and is
 * {@linkplain #fast() reported as slow}; the caller repeats it with a fresh client, so the exact
 * assertions never depend on the machine's speed.
 */
record Burst(List<HttpResponse<String>> responses, long elapsedNanos) {

    /** The number of requests: one more than the demo's limits of 5. */
    static final int SIZE = 6;
    private static final long ONE_SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final int ATTEMPTS = 5;

    /** A burst from one client, identified by the header values the request template fills in. */
    interface Client {
        /** Sends one request of the burst for client number {@code client}. */
        HttpResponse<String> send(int client) throws Exception;
    }

    /**
     * Sends bursts until one is fast, each from a new client (the supplier's next number).
     *
     * @throws AssertionError if {@value #ATTEMPTS} bursts in a row took a second or more
     */
    static Burst fast(Client client, java.util.function.IntSupplier clients) throws Exception {
        List<Long> slow = new ArrayList<>();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int c = clients.getAsInt();
            List<HttpResponse<String>> responses = new ArrayList<>();
            long start = System.nanoTime();
            for (int i = 0; i < SIZE; i++) {
                responses.add(client.send(c));
            }
            long elapsed = System.nanoTime() - start;
            Burst b = new Burst(List.copyOf(responses), elapsed);
            if (b.fast()) {
                return b;
            }
            slow.add(TimeUnit.NANOSECONDS.toMillis(elapsed));
        }
        throw new AssertionError("every burst took a second or more (ms: " + slow + "); the machine is too busy");
    }

    /** @return {@code true} if the whole burst took less than a second, seen from the client */
    boolean fast() {
        return elapsedNanos < ONE_SECOND;
    }

    HttpResponse<String> get(int i) {
        return responses.get(i);
    }
}
