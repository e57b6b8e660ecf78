// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {TestERC20} from "./TestERC20.sol";

/// @notice Token that burns 1% (rounded down) of every transfer: the sender is debited the
/// full amount, the receiver credited 99%.
contract FeeOnTransferToken is TestERC20 {
    constructor() TestERC20("Fee On Transfer USD", "FOTUSD", 6) {}

    function transfer(address to, uint256 amount) external returns (bool) {
        _transferWithBurn(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        _spendAllowance(from, amount);
        _transferWithBurn(from, to, amount);
        return true;
    }

    function _transferWithBurn(address from, address to, uint256 amount) private {
        uint256 burned = amount / 100;
        _burn(from, burned);
        _move(from, to, amount - burned);
    }
}
