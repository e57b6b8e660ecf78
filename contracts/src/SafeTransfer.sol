// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {IERC20} from "./IERC20.sol";

/// @notice ERC-20 transfer that tolerates non-standard tokens, after the SafeERC20 pattern
/// (OpenZeppelin): a call that reverts, returns `false`, or targets an address without code
/// fails; a call to a contract that returns nothing at all (USDT style) succeeds.
library SafeTransfer {
    error TokenTransferFailed(address token);

    function safeTransfer(address token, address to, uint256 amount) internal {
        (bool success, bytes memory returned) = token.call(abi.encodeCall(IERC20.transfer, (to, amount)));
        if (!success) {
            // Bubble up the token's own reason (insufficient balance, paused, blocklisted…).
            if (returned.length > 0) {
                assembly ("memory-safe") {
                    revert(add(returned, 0x20), mload(returned))
                }
            }
            revert TokenTransferFailed(token);
        }
        if (returned.length == 0) {
            // No return value is acceptable only from a contract: a call to an empty address succeeds too.
            if (token.code.length == 0) revert TokenTransferFailed(token);
        } else if (returned.length < 32 || abi.decode(returned, (uint256)) != 1) {
            revert TokenTransferFailed(token);
        }
    }
}
