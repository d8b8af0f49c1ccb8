package io.github.sluice.testing;

import io.github.sluice.request.RequestView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A {@link RequestView} built by hand for tests. Not thread-safe. */
public final class FakeRequest implements RequestView {

    private String method = "GET";
    private String path = "/";
    private String peer = "192.0.2.1";
    private String principal;
    private final Map<String, List<String>> headers = new HashMap<>();
    private final Map<String, Object> attributes = new HashMap<>();

    /** @return a GET of {@code /} from 192.0.2.1 */
    public static FakeRequest get(String path) {
        return new FakeRequest().path(path);
    }

    /** @param m the method @return this */
    public FakeRequest method(String m) {
        this.method = m;
        return this;
    }

    /** @param p the path @return this */
    public FakeRequest path(String p) {
        this.path = p;
        return this;
    }

    /** @param address the peer address @return this */
    public FakeRequest peer(String address) {
        this.peer = address;
        return this;
    }

    /** @param name the principal @return this */
    public FakeRequest principal(String name) {
        this.principal = name;
        return this;
    }

    /** Adds one field line. @return this */
    public FakeRequest header(String name, String line) {
        headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(line);
        return this;
    }

    /** @return this */
    public FakeRequest attribute(String name, Object value) {
        attributes.put(name, value);
        return this;
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public Iterator<String> headers(String name) {
        List<String> lines = headers.get(name.toLowerCase(Locale.ROOT));
        return lines == null ? Collections.emptyIterator() : lines.iterator();
    }

    @Override
    public String peerAddress() {
        return peer;
    }

    @Override
    public String principal() {
        return principal;
    }

    @Override
    public Object attribute(String name) {
        return attributes.get(name);
    }
}
