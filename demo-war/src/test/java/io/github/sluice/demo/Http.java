package io.github.sluice.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A small HTTP client for the demo's endpoints: GET with extra headers, bodies as text. */
final class Http {

    /** Bounds every request, so that a hung server fails a test instead of hanging the build. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient client = HttpClient.newBuilder()
            .connectTimeout(TIMEOUT)
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    private final URI base;

    Http(URI base) {
        this.base = base;
    }

    /**
     * Sends {@code GET path} with the given header names and values, alternating.
     *
     * @throws IOException if the exchange fails
     * @throws InterruptedException if interrupted
     */
    HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
        return client.send(request(path, headers), HttpResponse.BodyHandlers.ofString());
    }

    /** Sends without waiting for the answer. */
    CompletableFuture<HttpResponse<String>> getAsync(String path, String... headers) {
        return client.sendAsync(request(path, headers), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest request(String path, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(TIMEOUT).GET();
        if (headers.length > 0) {
            b.headers(headers);
        }
        return b.build();
    }

    /** @return the only value of a header, or {@code null}; fails if it occurs more than once */
    static String header(HttpResponse<?> response, String name) {
        var values = response.headers().allValues(name);
        if (values.size() > 1) {
            throw new AssertionError(name + " must occur at most once but was " + values);
        }
        return values.isEmpty() ? null : values.get(0);
    }
}
