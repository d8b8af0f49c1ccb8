package io.github.sluice.http;

/** Reason phrases of the statuses a denial may use, for problem titles. */
final class Reasons {

    private Reasons() {
    }

    static String phrase(int status) {
        return switch (status) {
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 402 -> "Payment Required";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 408 -> "Request Timeout";
            case 409 -> "Conflict";
            case 413 -> "Content Too Large";
            case 420 -> "Enhance Your Calm";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            case 507 -> "Insufficient Storage";
            case 509 -> "Bandwidth Limit Exceeded";
            default -> status < 500 ? "Client Error" : "Server Error";
        };
    }
}
