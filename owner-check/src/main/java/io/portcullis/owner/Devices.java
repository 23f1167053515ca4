package io.portcullis.owner;

import java.net.NetworkInterface;
import java.net.SocketException;

/** Network device names and indexes, for the bound-device part of a listener. */
final class Devices {
    private Devices() {}

    /** The loopback device's index; -1 when none is found, so only unbound listeners count. */
    static int loopbackIndex() {
        try {
            NetworkInterface lo = NetworkInterface.getByName("lo");
            return lo == null ? -1 : lo.getIndex();
        } catch (SocketException e) {
            return -1;
        }
    }

    /** The name of device {@code index}; empty for 0 (no device). */
    static String name(int index) {
        if (index == 0) {
            return "";
        }
        try {
            NetworkInterface device = NetworkInterface.getByIndex(index);
            return device == null ? "if" + index : device.getName();
        } catch (SocketException e) {
            return "if" + index;
        }
    }
}
