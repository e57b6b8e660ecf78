// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {ForwarderFactory, Terms} from "./ForwarderFactory.sol";

/// @notice Deposit addresses (catalogue `main_factory`): every sweep pays out the whole balance
/// B, the recipient B - fee(B) and the fee wallet fee(B) (LEDGER "Deposits"). A deposit is
/// never closed, so it can be swept again whenever tokens arrive. `Terms.amount` is the
/// minimum sweep: sweeping is permissionless, so without it a stranger could sweep after every
/// tiny top-up and make the merchant pay the minimum fee each time.
contract DepositForwarderFactory is ForwarderFactory {
    error NothingToSweep();
    error BelowMinimumSweep(uint256 balance, uint256 minimum);

    constructor(address initialOwner, address initialFeeWallet) ForwarderFactory(initialOwner, initialFeeWallet) {}

    function _sweepSplit(address, Terms calldata t, uint256 balance)
        internal
        pure
        override
        returns (uint256 toRecipient, uint256 toOperator)
    {
        if (balance == 0) revert NothingToSweep();
        if (balance < t.amount) revert BelowMinimumSweep(balance, t.amount);
        toOperator = _fee(balance, t);
        toRecipient = balance - toOperator;
    }

    function _checkRecover(address, Terms calldata, address) internal pure override {}
}
