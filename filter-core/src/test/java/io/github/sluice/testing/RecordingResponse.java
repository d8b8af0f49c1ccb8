package io.github.sluice.testing;

import io.github.sluice.request.BodySink;
import io.github.sluice.request.HeaderSink;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** Collects what a verdict writes: header fields (a name twice fails) and the body. */
public final class RecordingResponse implements HeaderSink, BodySink {

    /** Header fields in the order written. */
    public final Map<String, String> headers = new LinkedHashMap<>();
    /** The body, or {@code null}. */
    public byte[] body;

    @Override
    public void header(String name, String value) {
        if (headers.put(name, value) != null) {
            throw new AssertionError("header written twice: " + name);
        }
    }

    @Override
    public void body(byte[] bytes) {
        if (body != null) {
            throw new AssertionError("body written twice");
        }
        body = bytes;
    }

    /** @return the body as UTF-8 text */
    public String bodyText() {
        return body == null ? null : new String(body, StandardCharsets.UTF_8);
    }
}
