package io.github.sluice.key;

/** Which request header trusted proxies use to pass on the client's address. */
public enum ForwardedHeader {
    /** {@code X-Forwarded-For: client, proxy1, proxy2}: the de-facto standard (default). */
    X_FORWARDED_FOR("X-Forwarded-For"),
    /** {@code Forwarded: for=client, for=proxy1}: RFC 7239. */
    FORWARDED("Forwarded");

    private final String headerName;

    ForwardedHeader(String headerName) {
        this.headerName = headerName;
    }

    /** @return the header's name, e.g. {@code X-Forwarded-For} */
    public String headerName() {
        return headerName;
    }

    /** @return the name used in the configuration language: {@code x-forwarded-for} or {@code forwarded} */
    public String configName() {
        return headerName.toLowerCase(java.util.Locale.ROOT);
    }
}
