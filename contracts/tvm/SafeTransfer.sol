// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {IERC20} from "./IERC20.sol";

/// @notice The TVM build's token transfer (replaces contracts/src/SafeTransfer.sol): it trusts
/// balances, never the return value. Tether's TRC-20 USDT, the token most paid on Tron,
/// returns `false` from a successful `transfer`; a forwarder that believed it would never
/// sweep. A transfer succeeds when the call did not revert and the forwarder's balance fell by
/// exactly `amount`; anything else (a silent no-op, a token that moved more or less) fails.
library SafeTransfer {
    error TokenTransferFailed(address token);

    function safeTransfer(address token, address to, uint256 amount) internal {
        // A high-level call: a token address without code reverts here.
        uint256 before = IERC20(token).balanceOf(address(this));
        (bool success, bytes memory returned) = token.call(abi.encodeCall(IERC20.transfer, (to, amount)));
        if (!success) {
            // Bubble up the token's own reason (insufficient balance, paused, blacklisted…).
            if (returned.length > 0) {
                assembly ("memory-safe") {
                    revert(add(returned, 0x20), mload(returned))
                }
            }
            revert TokenTransferFailed(token);
        }
        uint256 remaining = IERC20(token).balanceOf(address(this));
        if (remaining > before || before - remaining != amount) revert TokenTransferFailed(token);
    }
}
