package io.github.sluice.policy;

/**
 * A configuration error found while loading: it names where (the source and line), what (the
 * parameter) and the offending value, and why. Thrown at load time, never at the first request.
 *
 * <p>Example message: {@code policies line 2 (policy 'per-ip'): burst='0': burst must be >= 1
 * but was 0}.
 */
public final class ConfigException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** Where the text came from. */
    private final String source;
    /** The 1-based line, or 0. */
    private final int line;
    /** The parameter in error. */
    private final String parameter;
    /** The offending value, or {@code null} if missing. */
    private final String value;
    /** What is wrong, without the source, line, policy, parameter and value. */
    private final transient String reason;

    /**
     * Creates an exception.
     *
     * @param source where the text came from, e.g. {@code init-param policies} or a file name
     * @param line the 1-based line, or 0 if the source has no lines
     * @param policy the policy's name, or {@code null} if not inside a policy
     * @param parameter the parameter, e.g. {@code burst}
     * @param value the offending value as written, or {@code null} if it is missing
     * @param reason what is wrong, e.g. {@code burst must be >= 1 but was 0}
     * @param cause the underlying error, or {@code null}
     */
    public ConfigException(String source, int line, String policy, String parameter, String value,
            String reason, Throwable cause) {
        super(message(source, line, policy, parameter, value, reason), cause);
        this.source = source;
        this.line = line;
        this.parameter = parameter;
        this.value = value;
        this.reason = reason;
    }

    private static String message(String source, int line, String policy, String parameter, String value,
            String reason) {
        StringBuilder b = new StringBuilder(source);
        if (line > 0) {
            b.append(" line ").append(line);
        }
        if (policy != null) {
            b.append(" (policy '").append(policy).append("')");
        }
        b.append(": ").append(parameter);
        if (value != null) {
            b.append("='").append(shorten(value)).append('\'');
        } else {
            b.append(" (missing)");
        }
        return b.append(": ").append(reason).toString();
    }

    /** At most 200 characters, control characters escaped: a value must not break the message into lines. */
    private static String shorten(String value) {
        String v = value.length() <= 200 ? value : value.substring(0, 200) + "...";
        for (int i = 0; i < v.length(); i++) {
            if (Character.isISOControl(v.charAt(i))) {
                StringBuilder b = new StringBuilder(v.length() + 8);
                for (int j = 0; j < v.length(); j++) {
                    char c = v.charAt(j);
                    b.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
                }
                return b.toString();
            }
        }
        return v;
    }

    /** @return where the text came from */
    public String source() {
        return source;
    }

    /** @return the 1-based line, or 0 */
    public int line() {
        return line;
    }

    /** @return the parameter in error */
    public String parameter() {
        return parameter;
    }

    /** @return the offending value, or {@code null} if missing */
    public String value() {
        return value;
    }

    /** @return what is wrong, without where (for a message that wraps this one) */
    String reason() {
        return reason;
    }
}
