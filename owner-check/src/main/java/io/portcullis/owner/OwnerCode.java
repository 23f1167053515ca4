package io.portcullis.owner;

/** Why the owner check refused (SPEC R30-R34). The strings are stable and match the relay's deny codes. */
public enum OwnerCode {
    NONE("owner-none"),
    UNMAPPED("owner-unmapped"),
    GATEWAY("owner-gateway"),
    WALL("owner-wall"),
    CHECKOUT("owner-checkout"),
    DEFAULT_USER("owner-default-user"),
    ROOT("owner-root"),
    UNLABELLED("owner-unlabelled"),
    UNKNOWN_PROJECT("owner-unknown-project"),
    OTHER_ADDON("owner-other-addon"),
    OTHER_USER("owner-other-user"),
    ERROR("owner-error"),
    DOCKER_DOWN("owner-docker-down");

    private final String code;

    OwnerCode(String code) {
        this.code = code;
    }

    /** The stable lowercase, hyphenated code. */
    public String code() {
        return code;
    }

    @Override
    public String toString() {
        return code;
    }
}
