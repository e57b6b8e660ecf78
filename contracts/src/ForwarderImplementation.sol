// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {SafeTransfer} from "./SafeTransfer.sol";

/// @notice The code behind every payment address. Each forwarder is an EIP-1167 clone that
/// delegates here, so `FACTORY` (an immutable, part of this code) is the same for all clones:
/// the factory that deployed this implementation, and the only caller that can move funds.
/// The forwarder itself knows nothing of the split; the factory computes it from the terms
/// committed in the forwarder's CREATE2 salt.
contract ForwarderImplementation {
    address public immutable FACTORY;

    error OnlyFactory(address caller);
    error NativeTransferFailed(address to);

    constructor() {
        FACTORY = msg.sender;
    }

    modifier onlyFactory() {
        if (msg.sender != FACTORY) revert OnlyFactory(msg.sender);
        _;
    }

    /// @dev Native coin sent by mistake stays here until the factory's `recover` moves it.
    /// A sender that forwards only 2,300 gas (Solidity `transfer`) fails: the proxy's
    /// delegatecall costs more than that. Its coins stay with the sender.
    receive() external payable {}

    function transferToken(address token, address to, uint256 amount) external onlyFactory {
        SafeTransfer.safeTransfer(token, to, amount);
    }

    function transferNative(address payable to, uint256 amount) external onlyFactory {
        (bool success,) = to.call{value: amount}("");
        if (!success) revert NativeTransferFailed(to);
    }
}
