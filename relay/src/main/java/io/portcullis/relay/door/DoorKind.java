package io.portcullis.relay.door;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import io.portcullis.relay.observe.ConnectionRecord;
import io.portcullis.relay.policy.DenyCode;

/** Door connections: not served yet, so each is closed with {@code door-not-yet}. */
public final class DoorKind {
    private DoorKind() {}

    public static ChannelHandler handler() {
        return new ChannelHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                ConnectionRecord.of(ctx.channel()).deny(DenyCode.DOOR_NOT_YET);
                ctx.close();
            }
        };
    }
}
